// RUN: bitfold-opt %s -p onnx-to-quant | filecheck %s
// Trunc v2 drops two bits (output scale = 4 x scale): qcast, requant with its rounding, dcast.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %zp = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %in = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %so = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %out = "onnx.Constant"() {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
  %y = "qonnx.Trunc"(%x, %s, %zp, %in, %so, %out) {rounding_mode = "FLOOR", narrow = 0 : i64, signed = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK:      %y = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8<-32:63>:f32, 2.500000e-01>>
// CHECK-NEXT: %y_1 = quant.requant %y {rounding = "floor"} : tensor<4x!quant.uniform<i8<-32:63>:f32, 2.500000e-01>> to tensor<4x!quant.uniform<u4:f32, 1.000000e+00>>
// CHECK-NEXT: %y_2 = quant.dcast %y_1 : tensor<4x!quant.uniform<u4:f32, 1.000000e+00>> to tensor<4xf32>
