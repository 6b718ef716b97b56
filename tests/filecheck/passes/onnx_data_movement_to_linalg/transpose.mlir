// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Transpose (NCHW -> NHWC, perm [0, 2, 3, 1]) is a copy over the result's dims reading the input
// through the inverse permutation: result (d0, d1, d2, d3) <- input (d0, d3, d1, d2).

func.func @nchw_to_nhwc(%x: tensor<1x3x4x5xi8>) -> tensor<1x4x5x3xi8> {
  %r = "onnx.Transpose"(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xi8>) -> tensor<1x4x5x3xi8>
  func.return %r : tensor<1x4x5x3xi8>
}
// CHECK:      func.func @nchw_to_nhwc(%x: tensor<1x3x4x5xi8>) -> tensor<1x4x5x3xi8> {
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<1x4x5x3xi8>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x3x4x5xi8>) outs(%[[E]] : tensor<1x4x5x3xi8>) {
// CHECK-NEXT:   ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:     linalg.yield %[[IN]] : i8
// CHECK-NEXT:   } -> tensor<1x4x5x3xi8>
// CHECK-NEXT:   func.return %r : tensor<1x4x5x3xi8>
