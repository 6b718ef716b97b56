// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// SpaceToDepth of the input before its quantizer runs on the stored integers.
func.func @f(%x: tensor<1x1x4x4xf32>) -> tensor<1x4x2x2x!quant.uniform<i8:f32, 0.5>> {
  %s = "onnx.SpaceToDepth"(%x) {blocksize = 2 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x4x2x2xf32>
  %q = quant.qcast %s : tensor<1x4x2x2xf32> to tensor<1x4x2x2x!quant.uniform<i8:f32, 0.5>>
  func.return %q : tensor<1x4x2x2x!quant.uniform<i8:f32, 0.5>>
}
// CHECK:      %[[Q:.*]] = quant.qcast %x : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT: %[[S:.*]] = "onnx.SpaceToDepth"(%[[Q]]) {blocksize = 2 : i64} : (tensor<1x1x4x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<1x4x2x2x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT: func.return %[[S]]
