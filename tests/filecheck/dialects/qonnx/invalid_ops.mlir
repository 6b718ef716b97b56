// RUN: bitfold-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The qonnx ops' attribute checks: one diagnostic each.

func.func @f(%x: tensor<4xf32>, %p: tensor<f32>) {
  %y = "qonnx.Trunc_v1"(%x, %p, %p, %p, %p) {rounding_mode = "NEAREST"} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return
}
// CHECK: unknown rounding_mode 'NEAREST' (expected one of ROUND, HALF_EVEN, HALF_UP, HALF_DOWN, UP, DOWN, ROUND_TO_ZERO, CEIL, FLOOR)

// -----

func.func @f(%x: tensor<4xf32>, %p: tensor<f32>) {
  %y = "qonnx.Quant"(%x, %p, %p, %p) {signed = 1 : i64, narrow = 2 : i64, rounding_mode = "ROUND"} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return
}
// CHECK: 'narrow' must be 0 or 1, got 2

// -----

func.func @f(%x: tensor<4xf32>, %p: tensor<f32>) {
  %y = "qonnx.Trunc"(%x, %p, %p, %p, %p, %p) {rounding_mode = "FLOOR", narrow = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return
}
// CHECK: attribute 'signed' expected in operation 'qonnx.Trunc'
