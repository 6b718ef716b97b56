// RUN: bitfold-opt %s -p onnx-to-quant | filecheck %s
// QONNX Quant, 6-bit unsigned, odd zero point, HALF_UP: u8<0:63> storage, QONNX's order.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zp = "onnx.Constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %bits = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %y = "qonnx.Quant"(%x, %s, %zp, %bits) {signed = 0 : i64, narrow = 0 : i64, rounding_mode = "HALF_UP"} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK:      %y = quant.qcast %x {rounding = "half_away_from_zero", zero_point_first} : tensor<4xf32> to tensor<4x!quant.uniform<u8<0:63>:f32, 5.000000e-01:3>>
// CHECK-NEXT: %y_1 = quant.dcast %y : tensor<4x!quant.uniform<u8<0:63>:f32, 5.000000e-01:3>> to tensor<4xf32>
