// RUN: bitfold-opt %s -p onnx-conv-transpose-to-conv | filecheck %s

// Weights computed at run time (a Relu), 4 -> 6 channels in 2 groups, kernel 2x2, stride 1:
// C x M/g x K = 4x3x2x2 is reshaped to g x C/g x M/g x K = 2x2x3x2x2, its two channel axes
// swapped within each group (perm 0, 2, 1, 3, 4), reshaped to M x C/g x K = 6x2x2x2 and the
// kernel flipped by a Slice of step -1; the Conv keeps group 2.

func.func @deconv(%x: tensor<1x4x3x3xf32>, %w0: tensor<4x3x2x2xf32>) -> tensor<1x6x4x4xf32> {
  %w = "onnx.Relu"(%w0) : (tensor<4x3x2x2xf32>) -> tensor<4x3x2x2xf32>
  %y = "onnx.ConvTranspose"(%x, %w) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4x3x2x2xf32>) -> tensor<1x6x4x4xf32> loc("deconv")
  func.return %y : tensor<1x6x4x4xf32>
}

// CHECK:      %w = "onnx.Relu"(%w0)
// CHECK:      %[[G:.*]] = "onnx.Reshape"(%w, %{{.*}}) {{.*}} -> tensor<2x2x3x2x2xf32>
// CHECK-NEXT: %[[S:.*]] = "onnx.Transpose"(%[[G]]) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<2x2x3x2x2xf32>) -> tensor<2x3x2x2x2xf32>
// CHECK:      %[[M:.*]] = "onnx.Reshape"(%[[S]], %{{.*}}) {{.*}} -> tensor<6x2x2x2xf32>
// CHECK:      %[[F:.*]] = "onnx.Slice"(%[[M]], {{.*}}) <{{.*}}> : ({{.*}}) -> tensor<6x2x2x2xf32>
// CHECK:      "onnx.Pad"{{.*}} -> tensor<1x4x5x5xf32>
// CHECK:      %y = "onnx.Conv"(%{{.*}}, %[[F]]) {{.*}}group = 2 : i64{{.*}} : (tensor<1x4x5x5xf32>, tensor<6x2x2x2xf32>) -> tensor<1x6x4x4xf32>
