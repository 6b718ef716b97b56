// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A float NHWC input transposed to NCHW, then quantized (tf2onnx): the qcast moves to the
// argument and the Transpose runs on the stored integers.
func.func @f(%x: tensor<1x2x2x3xf32>) -> tensor<1x3x2x2xf32> {
  %t = "onnx.Transpose"(%x) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x3xf32>) -> tensor<1x3x2x2xf32>
  %q = quant.qcast %t : tensor<1x3x2x2xf32> to tensor<1x3x2x2x!quant.uniform<u8:f32, 0.5:128>>
  %d = quant.dcast %q : tensor<1x3x2x2x!quant.uniform<u8:f32, 0.5:128>> to tensor<1x3x2x2xf32>
  func.return %d : tensor<1x3x2x2xf32>
}
// CHECK:      %[[Q:.*]] = quant.qcast %x : tensor<1x2x2x3xf32> to tensor<1x2x2x3x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %[[T:.*]] = "onnx.Transpose"(%[[Q]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x3x!quant.uniform<u8:f32, 5.000000e-01:128>>) -> tensor<1x3x2x2x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %{{.*}} = quant.dcast %[[T]]
// CHECK-NEXT: func.return
