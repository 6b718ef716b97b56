// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Mode edge repeats the border element: the clamped read alone, no select. A negative pad
// (removing one element after the axis) needs no clamp on its side.

func.func @edge(%x: tensor<6xi16>) -> tensor<7xi16> {
  %pads = "onnx.Constant"() {value = dense<[2, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Pad"(%x, %pads) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {mode = "edge"} : (tensor<6xi16>, tensor<2xi64>) -> tensor<7xi16>
  func.return %r : tensor<7xi16>
}
// CHECK:      func.func @edge(%x: tensor<6xi16>) -> tensor<7xi16> {
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<7xi16>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[E]] : tensor<7xi16>) {
// CHECK-NEXT:   ^bb0(%{{.*}}: i16):
// CHECK-NEXT:     %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[S:.*]] = arith.subi %[[I]], %[[TWO]] : index
// CHECK-NEXT:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[C:.*]] = arith.maxsi %[[S]], %[[ZERO]] : index
// CHECK-NEXT:     %[[V:.*]] = tensor.extract %x[%[[C]]] : tensor<6xi16>
// CHECK-NEXT:     linalg.yield %[[V]] : i16
// CHECK-NEXT:   } -> tensor<7xi16>
// CHECK-NEXT:   func.return %r : tensor<7xi16>
