// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Expand (3x1 to 2x3x4) is a copy over the result's dims reading the input broadcast: its axes
// align with the result's last two, and the size-1 axis is read at index 0.

func.func @expand(%x: tensor<3x1xi8>) -> tensor<2x3x4xi8> {
  %shape = "onnx.Constant"() {value = dense<[2, 1, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = "onnx.Expand"(%x, %shape) : (tensor<3x1xi8>, tensor<3xi64>) -> tensor<2x3x4xi8>
  func.return %r : tensor<2x3x4xi8>
}
// CHECK:      func.func @expand(%x: tensor<3x1xi8>) -> tensor<2x3x4xi8> {
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<2x3x4xi8>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<3x1xi8>) outs(%[[E]] : tensor<2x3x4xi8>) {
// CHECK-NEXT:   ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:     linalg.yield %[[IN]] : i8
// CHECK-NEXT:   } -> tensor<2x3x4xi8>
// CHECK-NEXT:   func.return %r : tensor<2x3x4xi8>
