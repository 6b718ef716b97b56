// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// DepthToSpace (DCR) is its block permutation: expand to 1x2x2x1x2x3, transpose
// (0, 3, 4, 1, 5, 2), collapse to 1x1x4x6.
func.func @f(%x: tensor<1x4x2x3xi8>) -> tensor<1x1x4x6xi8> {
  %d = "onnx.DepthToSpace"(%x) {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x4x2x3xi8>) -> tensor<1x1x4x6xi8>
  func.return %d : tensor<1x1x4x6xi8>
}
// CHECK:      %[[B:.*]] = tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64, 4 : i64], [5 : i64]] output_shape [1, 2, 2, 1, 2, 3] : tensor<1x4x2x3xi8> into tensor<1x2x2x1x2x3xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x1x2x2x3x2xi8>
// CHECK-NEXT: %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d5, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], {{.*}} ins(%[[B]] : tensor<1x2x2x1x2x3xi8>) outs(%[[E]] : tensor<1x1x2x2x3x2xi8>)
// CHECK:      %d = tensor.collapse_shape %[[T]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] : tensor<1x1x2x2x3x2xi8> into tensor<1x1x4x6xi8>
// CHECK-NEXT: func.return %d
