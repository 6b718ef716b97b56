// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A weight the model transposes (Brevitas' bias-free QuantLinear: MatMul(x, Transpose(W))):
// dcast sinks below the Transpose, which then moves a quantized constant and folds into the
// transposed constant, so the MatMul reads dcast(scast(constant)) again.
func.func @f(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  %c = "onnx.Constant"() {value = dense<[[1, -2, 3], [4, 5, -6]]> : tensor<2x3xi8>} : () -> tensor<2x3xi8>
  %w = quant.scast %c : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8<-7:7>:f32, 0.5>>
  %wf = quant.dcast %w : tensor<2x3x!quant.uniform<i8<-7:7>:f32, 0.5>> to tensor<2x3xf32>
  %t = "onnx.Transpose"(%wf) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = "onnx.MatMul"(%x, %t) : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32>
  func.return %y : tensor<1x2xf32>
}
// CHECK-NOT:  tensor<2x3xi8>
// CHECK:      %{{.*}} = "onnx.Constant"() {value = dense<{{\[}}[1, 4], [-2, 5], [3, -6]]> : tensor<3x2xi8>} : () -> tensor<3x2xi8>
// CHECK-NEXT: %{{.*}} = quant.scast %{{.*}} : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8<-7:7>:f32, 5.000000e-01>>
// CHECK-NEXT: %{{.*}} = quant.dcast %{{.*}} : tensor<3x2x!quant.uniform<i8<-7:7>:f32, 5.000000e-01>> to tensor<3x2xf32>
// CHECK-NEXT: %y = "onnx.MatMul"
// CHECK-NOT:  onnx.Transpose
