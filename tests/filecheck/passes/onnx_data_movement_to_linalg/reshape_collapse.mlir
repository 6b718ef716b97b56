// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Flatten and Squeeze merge neighbouring dims: one tensor.collapse_shape each, the size-1 dims
// joining a neighbour's group; the shape / axes constants go with the ops.

func.func @flatten(%x: tensor<1x8x2x2xi8>) -> tensor<1x32xi8> {
  %r = "onnx.Flatten"(%x) {axis = 1 : i64} : (tensor<1x8x2x2xi8>) -> tensor<1x32xi8>
  func.return %r : tensor<1x32xi8>
}
// CHECK:      func.func @flatten(%x: tensor<1x8x2x2xi8>) -> tensor<1x32xi8> {
// CHECK-NEXT:   %r = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64, 3 : i64]] : tensor<1x8x2x2xi8> into tensor<1x32xi8>
// CHECK-NEXT:   func.return %r : tensor<1x32xi8>

func.func @squeeze(%x: tensor<1x8x1x1xi8>) -> tensor<8xi8> {
  %axes = "onnx.Constant"() {value = dense<[0, 2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = "onnx.Squeeze"(%x, %axes) <{operandSegmentSizes = array<i32: 1, 1>}> : (tensor<1x8x1x1xi8>, tensor<3xi64>) -> tensor<8xi8>
  func.return %r : tensor<8xi8>
}
// CHECK:      func.func @squeeze(%x: tensor<1x8x1x1xi8>) -> tensor<8xi8> {
// CHECK-NEXT:   %r = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64, 2 : i64, 3 : i64]] : tensor<1x8x1x1xi8> into tensor<8xi8>
// CHECK-NEXT:   func.return %r : tensor<8xi8>
