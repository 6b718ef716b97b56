// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s
// RUN: bitfold-opt %s -p 'quant-to-integer{integer-io=true}' | filecheck %s --check-prefix=IO

// The model's own integers: a uint8 input read by an scast, a uint8 output that is an scast
// of the requantized result. Without integer-io the signature stays the model's (ui8 in and
// out); both record their quantized type under `quant.type`. With integer-io they are the
// signless storage integers, the same bits.

func.func @relu(%x: tensor<4xui8>) -> tensor<4xui8> {
  %xq = quant.scast %x : tensor<4xui8> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  %y = "onnx.Relu"(%xf) : (tensor<4xf32>) -> tensor<4xf32> loc("relu")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.25>>
  %yi = quant.scast %yq : tensor<4x!quant.uniform<u8:f32, 0.25>> to tensor<4xui8>
  func.return %yi : tensor<4xui8>
}

// CHECK:      func.func @relu(%x: tensor<4xui8> {quant.type = "!quant.uniform<u8:f32, 5.000000e-01:10>"}) -> (tensor<4xui8> {quant.type = "!quant.uniform<u8:f32, 2.500000e-01>"}) {
// CHECK:        %yq = quant.requant %{{.*}} : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4x!quant.uniform<u8:f32, 2.500000e-01>>
// CHECK-NEXT:   %yi = quant.scast %yq : tensor<4x!quant.uniform<u8:f32, 2.500000e-01>> to tensor<4xui8>
// CHECK-NEXT:   func.return %yi : tensor<4xui8>

// IO:      func.func @relu(%x: tensor<4xi8> {quant.type = "!quant.uniform<u8:f32, 5.000000e-01:10>"}) -> (tensor<4xi8> {quant.type = "!quant.uniform<u8:f32, 2.500000e-01>"}) {
// IO-NEXT:   %xq = quant.scast %x : tensor<4xi8> to tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>>
// IO:        %yq = quant.requant %{{.*}} : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4x!quant.uniform<u8:f32, 2.500000e-01>>
// IO-NEXT:   %yi = quant.scast %yq : tensor<4x!quant.uniform<u8:f32, 2.500000e-01>> to tensor<4xi8>
// IO-NEXT:   func.return %yi : tensor<4xi8>
