// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Transpose of a dequantized per-axis tensor runs on the stored integers; the quantized
// dimension 1 moves to perm.index(1) = 0. The following qcast of that type then folds.
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %q = quant.qcast %x : tensor<2x3x4xf32> to tensor<2x3x4x!quant.uniform<i8:f32:1, {0.1:-3, 0.2, 0.3:5}>>
  %d = quant.dcast %q : tensor<2x3x4x!quant.uniform<i8:f32:1, {0.1:-3, 0.2, 0.3:5}>> to tensor<2x3x4xf32>
  %t = "onnx.Transpose"(%d) {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %q2 = quant.qcast %t : tensor<3x2x4xf32> to tensor<3x2x4x!quant.uniform<i8:f32:0, {0.1:-3, 0.2, 0.3:5}>>
  %d2 = quant.dcast %q2 : tensor<3x2x4x!quant.uniform<i8:f32:0, {0.1:-3, 0.2, 0.3:5}>> to tensor<3x2x4xf32>
  func.return %d2 : tensor<3x2x4xf32>
}
// CHECK:      %q = quant.qcast %x
// CHECK-NEXT: %t = "onnx.Transpose"(%q) {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4x!quant.uniform<i8:f32:1, {1.000000e-01:-3,2.000000e-01,3.000000e-01:5}>>) -> tensor<3x2x4x!quant.uniform<i8:f32:0, {1.000000e-01:-3,2.000000e-01,3.000000e-01:5}>>
// CHECK-NEXT: %d2 = quant.dcast %t : tensor<3x2x4x!quant.uniform<i8:f32:0, {1.000000e-01:-3,2.000000e-01,3.000000e-01:5}>> to tensor<3x2x4xf32>
// CHECK-NEXT: func.return %d2
