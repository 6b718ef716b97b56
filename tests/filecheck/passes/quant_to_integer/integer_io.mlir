// RUN: bitfold-opt %s -p 'quant-to-integer{integer-io=true}' | filecheck %s

// integer-io: the argument, read only by a qcast to i8 (0.5, -5), becomes tensor<4xi8> and the
// qcast an scast of it; the result, a dcast of u8 (0.25), becomes those storage integers.
// Both record their quantized type as a `quant.type` string attribute.

func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:-5>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<i8:f32, 0.5:-5>> to tensor<4xf32>
  %y = "onnx.Relu"(%xf) : (tensor<4xf32>) -> tensor<4xf32> loc("relu")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.25>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<u8:f32, 0.25>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      func.func @relu(%x: tensor<4xi8> {quant.type = "!quant.uniform<i8:f32, 5.000000e-01:-5>"}) -> (tensor<4xi8> {quant.type = "!quant.uniform<u8:f32, 2.500000e-01>"}) {
// CHECK-NEXT:   %xq = quant.scast %x : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-5>>
// CHECK:        %yq = quant.requant %{{.*}} : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-5>> to tensor<4x!quant.uniform<u8:f32, 2.500000e-01>>
// CHECK-NEXT:   %[[OUT:.*]] = quant.scast %yq : tensor<4x!quant.uniform<u8:f32, 2.500000e-01>> to tensor<4xi8>
// CHECK-NEXT:   func.return %[[OUT]] : tensor<4xi8>
// CHECK-NOT:  quant.dcast
