// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Concat along channels: one generic over the result; each input is read at the channel index
// minus its offset (0, 2, 5), clamped into it, and selects on `index < offset` pick the input
// the element belongs to.

func.func @channels(%a: tensor<1x2x4xi8>, %b: tensor<1x3x4xi8>, %c: tensor<1x1x4xi8>) -> tensor<1x6x4xi8> {
  %r = "onnx.Concat"(%a, %b, %c) {axis = 1 : i64} : (tensor<1x2x4xi8>, tensor<1x3x4xi8>, tensor<1x1x4xi8>) -> tensor<1x6x4xi8>
  func.return %r : tensor<1x6x4xi8>
}
// CHECK:      func.func @channels(%a: tensor<1x2x4xi8>, %b: tensor<1x3x4xi8>, %c: tensor<1x1x4xi8>) -> tensor<1x6x4xi8> {
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<1x6x4xi8>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<1x6x4xi8>) {
// CHECK-NEXT:   ^bb0(%{{.*}}: i8):
// CHECK-NEXT:     %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:     %[[D1:.*]] = linalg.index 1 : index
// CHECK-NEXT:     %[[D2:.*]] = linalg.index 2 : index
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[AI:.*]] = arith.minsi %[[D1]], %[[ONE]] : index
// CHECK-NEXT:     %[[AV:.*]] = tensor.extract %a[%[[D0]], %[[AI]], %[[D2]]] : tensor<1x2x4xi8>
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[BS:.*]] = arith.subi %[[D1]], %[[TWO]] : index
// CHECK-NEXT:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[BLO:.*]] = arith.maxsi %[[BS]], %[[ZERO]] : index
// CHECK-NEXT:     %[[BI:.*]] = arith.minsi %[[BLO]], %[[TWO]] : index
// CHECK-NEXT:     %[[BV:.*]] = tensor.extract %b[%[[D0]], %[[BI]], %[[D2]]] : tensor<1x3x4xi8>
// CHECK-NEXT:     %[[FIVE:.*]] = arith.constant 5 : index
// CHECK-NEXT:     %[[CS:.*]] = arith.subi %[[D1]], %[[FIVE]] : index
// CHECK-NEXT:     %[[CI:.*]] = arith.maxsi %[[CS]], %[[ZERO]] : index
// CHECK-NEXT:     %[[CV:.*]] = tensor.extract %c[%[[D0]], %[[CI]], %[[D2]]] : tensor<1x1x4xi8>
// CHECK-NEXT:     %[[INB:.*]] = arith.cmpi slt, %[[D1]], %[[FIVE]] : index
// CHECK-NEXT:     %[[BC:.*]] = arith.select %[[INB]], %[[BV]], %[[CV]] : i8
// CHECK-NEXT:     %[[INA:.*]] = arith.cmpi slt, %[[D1]], %[[TWO]] : index
// CHECK-NEXT:     %[[Y:.*]] = arith.select %[[INA]], %[[AV]], %[[BC]] : i8
// CHECK-NEXT:     linalg.yield %[[Y]] : i8
// CHECK-NEXT:   } -> tensor<1x6x4xi8>
// CHECK-NEXT:   func.return %r : tensor<1x6x4xi8>
