// RUN: bitfold-opt %s -p onnx-to-quant | filecheck %s
// BipolarQuant of a constant weight folds to an i1 constant reinterpreted as !quant.bipolar.

func.func @f() -> tensor<3xf32> {
  %w = "onnx.Constant"() {value = dense<[0.3, -0.2, 0.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %s = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %y = "qonnx.BipolarQuant"(%w, %s) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK:      %{{.*}} = "onnx.Constant"() {value = dense<[true, false, true]> : tensor<3xi1>} : () -> tensor<3xi1>
// CHECK-NEXT: %{{.*}} = quant.scast %{{.*}} : tensor<3xi1> to tensor<3x!quant.bipolar<f32, 2.500000e-01>>
// CHECK-NEXT: %{{.*}} = quant.dcast %{{.*}} : tensor<3x!quant.bipolar<f32, 2.500000e-01>> to tensor<3xf32>
