// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Where with a constant condition (broadcast along the rows) and a constant fill (a masked_fill
// value, rank 0): the condition becomes an i8 constant of 0 / 1, the fill an arith.constant, and
// one generic selects through the broadcast maps.

func.func @where(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %mask = "onnx.Constant"() {value = dense<[true, false, true]> : tensor<3xi1>} : () -> tensor<3xi1>
  %fill = "onnx.Constant"() {value = dense<-4> : tensor<i8>} : () -> tensor<i8>
  %r = "onnx.Where"(%mask, %x, %fill) : (tensor<3xi1>, tensor<2x3xi8>, tensor<i8>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}
// CHECK:      func.func @where(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
// CHECK-NEXT:   %[[C:.*]] = arith.constant dense<[1, 0, 1]> : tensor<3xi8>
// CHECK-NEXT:   %[[F:.*]] = arith.constant dense<-4> : tensor<i8>
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<2x3xi8>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[C]], %x, %[[F]] : tensor<3xi8>, tensor<2x3xi8>, tensor<i8>) outs(%[[E]] : tensor<2x3xi8>) {
// CHECK-NEXT:   ^bb0(%[[IC:.*]]: i8, %[[IX:.*]]: i8, %[[IY:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:     %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-NEXT:     %[[NE:.*]] = arith.cmpi ne, %[[IC]], %[[ZERO]] : i8
// CHECK-NEXT:     %[[S:.*]] = arith.select %[[NE]], %[[IX]], %[[IY]] : i8
// CHECK-NEXT:     linalg.yield %[[S]] : i8
// CHECK-NEXT:   } -> tensor<2x3xi8>
// CHECK-NEXT:   func.return %r : tensor<2x3xi8>
