// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Only integer tensors are lowered: a float Transpose (not a quantized region) stays as it is.

func.func @float(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = "onnx.Transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}
// CHECK:      func.func @float(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:   %r = "onnx.Transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:   func.return %r : tensor<3x2xf32>
