// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Unsqueeze (and a Reshape that only splits dims) is one tensor.expand_shape.

func.func @unsqueeze(%x: tensor<3x4xi16>) -> tensor<1x3x4x1xi16> {
  %axes = "onnx.Constant"() {value = dense<[0, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Unsqueeze"(%x, %axes) : (tensor<3x4xi16>, tensor<2xi64>) -> tensor<1x3x4x1xi16>
  func.return %r : tensor<1x3x4x1xi16>
}
// CHECK:      func.func @unsqueeze(%x: tensor<3x4xi16>) -> tensor<1x3x4x1xi16> {
// CHECK-NEXT:   %r = tensor.expand_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64]] output_shape [1, 3, 4, 1] : tensor<3x4xi16> into tensor<1x3x4x1xi16>
// CHECK-NEXT:   func.return %r : tensor<1x3x4x1xi16>

func.func @split(%x: tensor<6x4xi8>) -> tensor<2x3x2x2xi8> {
  %shape = "onnx.Constant"() {value = dense<[2, 3, 2, -1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %r = "onnx.Reshape"(%x, %shape) {allowzero = 0 : i64} : (tensor<6x4xi8>, tensor<4xi64>) -> tensor<2x3x2x2xi8>
  func.return %r : tensor<2x3x2x2xi8>
}
// CHECK:      func.func @split(%x: tensor<6x4xi8>) -> tensor<2x3x2x2xi8> {
// CHECK-NEXT:   %r = tensor.expand_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64]] output_shape [2, 3, 2, 2] : tensor<6x4xi8> into tensor<2x3x2x2xi8>
// CHECK-NEXT:   func.return %r : tensor<2x3x2x2xi8>
