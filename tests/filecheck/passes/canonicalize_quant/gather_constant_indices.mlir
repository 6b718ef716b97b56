// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Gather with constant indices selects stored integers; a per-axis dimension after the
// gather axis moves by the indices' rank - 1 (a scalar index removes the axis: 2 -> 1).
func.func @f(%x: tensor<3x2x4xf32>) -> tensor<2x4xf32> {
  %i = "onnx.Constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %q = quant.qcast %x : tensor<3x2x4xf32> to tensor<3x2x4x!quant.uniform<u8:f32:2, {0.1, 0.2, 0.3, 0.4}>>
  %d = quant.dcast %q : tensor<3x2x4x!quant.uniform<u8:f32:2, {0.1, 0.2, 0.3, 0.4}>> to tensor<3x2x4xf32>
  %g = "onnx.Gather"(%d, %i) {axis = 0 : i64} : (tensor<3x2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  func.return %g : tensor<2x4xf32>
}
// CHECK:      %q = quant.qcast %x
// CHECK-NEXT: %g = "onnx.Gather"(%q, %i) {axis = 0 : i64} : (tensor<3x2x4x!quant.uniform<u8:f32:2, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>, tensor<i64>) -> tensor<2x4x!quant.uniform<u8:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>
// CHECK-NEXT: %{{.*}} = quant.dcast %g
