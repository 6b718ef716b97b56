// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// A Reshape that regroups dims collapses the input's groups and expands the result's: 2x3x4 and
// 3x2x4 share the groups (2x3 | 3x2) and (4 | 4), so it goes through 6x4; 2x3 to 3x2 shares
// nothing and goes through 1-D.

func.func @regroup(%x: tensor<2x3x4xi8>) -> tensor<3x2x4xi8> {
  %shape = "onnx.Constant"() {value = dense<[3, 2, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = "onnx.Reshape"(%x, %shape) {allowzero = 0 : i64} : (tensor<2x3x4xi8>, tensor<3xi64>) -> tensor<3x2x4xi8>
  func.return %r : tensor<3x2x4xi8>
}
// CHECK:      func.func @regroup(%x: tensor<2x3x4xi8>) -> tensor<3x2x4xi8> {
// CHECK-NEXT:   %[[M:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<2x3x4xi8> into tensor<6x4xi8>
// CHECK-NEXT:   %r = tensor.expand_shape %[[M]] {{\[}}[0 : i64, 1 : i64], [2 : i64]] output_shape [3, 2, 4] : tensor<6x4xi8> into tensor<3x2x4xi8>
// CHECK-NEXT:   func.return %r : tensor<3x2x4xi8>

func.func @through_1d(%x: tensor<2x3xi32>) -> tensor<3x2xi32> {
  %shape = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %shape) {allowzero = 0 : i64} : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<3x2xi32>
  func.return %r : tensor<3x2xi32>
}
// CHECK:      func.func @through_1d(%x: tensor<2x3xi32>) -> tensor<3x2xi32> {
// CHECK-NEXT:   %[[F:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64]] : tensor<2x3xi32> into tensor<6xi32>
// CHECK-NEXT:   %r = tensor.expand_shape %[[F]] {{\[}}[0 : i64, 1 : i64]] output_shape [3, 2] : tensor<6xi32> into tensor<3x2xi32>
// CHECK-NEXT:   func.return %r : tensor<3x2xi32>
