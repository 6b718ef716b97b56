// RUN: bitfold-opt %s --verify-quant 2>&1 | filecheck %s
// RUN: bitfold-opt %s -p verify-quant 2>&1 | filecheck %s

// --verify-quant runs verify-quant after the (empty) pipeline, as `-p verify-quant` runs it alone:
// one line per finding on stderr, named by the node, then a summary. The IR is printed unchanged.

func.func @f(%x: tensor<1x512x5x5xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<1x8x3x3xf32>, tensor<8xf32>, tensor<4xf32>) {
  %xq = quant.qcast %x : tensor<1x512x5x5xf32> to tensor<1x512x5x5x!quant.uniform<i16:f32, 0.001>>
  %xd = quant.dcast %xq : tensor<1x512x5x5x!quant.uniform<i16:f32, 0.001>> to tensor<1x512x5x5xf32>
  %wc = "onnx.Constant"() {value = dense<1> : tensor<8x512x3x3xi8>} : () -> tensor<8x512x3x3xi8>
  %wq = quant.scast %wc : tensor<8x512x3x3xi8> to tensor<8x512x3x3x!quant.uniform<i8:f32, 0.01>>
  %wd = quant.dcast %wq : tensor<8x512x3x3x!quant.uniform<i8:f32, 0.01>> to tensor<8x512x3x3xf32>
  %conv = "onnx.Conv"(%xd, %wd) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 1 : i64} : (tensor<1x512x5x5xf32>, tensor<8x512x3x3xf32>) -> tensor<1x8x3x3xf32> loc("conv3")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  %yd = quant.dcast %yq : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf32>
  %zq = quant.qcast %z : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.2>>
  %zd = quant.dcast %zq : tensor<4x!quant.uniform<i8:f32, 0.2>> to tensor<4xf32>
  %cat = "onnx.Concat"(%yd, %zd) {axis = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32> loc("concat1")
  %zq2 = quant.qcast %z : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.2:128>>
  %zd2 = quant.dcast %zq2 : tensor<4x!quant.uniform<u8:f32, 0.2:128>> to tensor<4xf32>
  func.return %conv, %cat, %zd2 : tensor<1x8x3x3xf32>, tensor<8xf32>, tensor<4xf32>
}

// CHECK:      verify-quant: argument %z: value quantized to 2 different types: !quant.uniform<i8:f32, 2.000000e-01>, !quant.uniform<u8:f32, 2.000000e-01:128>
// CHECK-NEXT: verify-quant: node 'concat1' (onnx.Concat): input scales disagree: 0.1, 0.2
// CHECK-NEXT: verify-quant: node 'conv3' (onnx.Conv): int32 accumulator can overflow: 3x3x512 products of 16-bit x 8-bit values reach 2^34.2
// CHECK-NEXT: verify-quant: 3 findings (1 accumulator overflow, 1 mixed quantization, 1 scale mismatch)
// CHECK:      func.func @f
// CHECK:      "onnx.Conv"(%xd, %wd)
