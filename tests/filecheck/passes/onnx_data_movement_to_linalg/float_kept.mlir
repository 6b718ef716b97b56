// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Integer and f32 (float island) tensors are lowered: an f64 Transpose stays as it is; an f32
// one becomes the permuting generic.

func.func @double(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %r = "onnx.Transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
  func.return %r : tensor<3x2xf64>
}
// CHECK:      func.func @double(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
// CHECK-NEXT:   %r = "onnx.Transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK-NEXT:   func.return %r : tensor<3x2xf64>

func.func @single(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = "onnx.Transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}
// CHECK:      func.func @single(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%[[E]] : tensor<3x2xf32>)
