// RUN: bitfold-opt %s -p onnx-conv-transpose-to-conv | filecheck %s

// A 2x2 input, 2 -> 1 channels, kernel 2x2, stride 2, pads 0: one zero after each element
// (reshape to unit axes, pad them to 2, reshape back), padded by kernel - 1 = 1 at the begin
// and 1 - (stride - 1) = 0 at the end, then a stride-1 Conv with the kernel transposed
// (1 x 2 channels) and flipped.

func.func @deconv(%x: tensor<1x2x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> : tensor<2x1x2x2xf32>} : () -> tensor<2x1x2x2xf32>
  %y = "onnx.ConvTranspose"(%x, %w) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 1 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>, tensor<2x1x2x2xf32>) -> tensor<1x1x4x4xf32> loc("deconv")
  func.return %y : tensor<1x1x4x4xf32>
}

// CHECK:      "onnx.Constant"() {value = dense<{{\[\[\[\[}}4.000000e+00, 3.000000e+00], [2.000000e+00, 1.000000e+00]], {{\[\[}}8.000000e+00, 7.000000e+00], [6.000000e+00, 5.000000e+00]]]]> : tensor<1x2x2x2xf32>}
// CHECK:      "onnx.Reshape"(%x, %{{.*}}) {{.*}} -> tensor<1x2x2x1x2x1xf32>
// CHECK:      "onnx.Constant"() {value = dense<[0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1]> : tensor<12xi64>}
// CHECK:      "onnx.Pad"{{.*}} -> tensor<1x2x2x2x2x2xf32>
// CHECK:      "onnx.Reshape"{{.*}} -> tensor<1x2x4x4xf32>
// CHECK:      "onnx.Constant"() {value = dense<[0, 0, 1, 1, 0, 0, 0, 0]> : tensor<8xi64>}
// CHECK:      "onnx.Pad"{{.*}} -> tensor<1x2x5x5xf32>
// CHECK:      %y = "onnx.Conv"({{.*}}) {{.*}}{auto_pad = "NOTSET", group = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x4x4xf32>
