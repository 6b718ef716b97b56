// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Conv padding (1 before and after H and W) with the zero point -3: a generic over the padded
// shape, no inputs; along each padded axis the index minus the begin pad is clamped into the
// input, the element read there with tensor.extract, and the pad value selected where the
// clamp moved the index. Unpadded axes read at linalg.index as it is.

func.func @conv_padding(%x: tensor<1x2x3x3xi8>) -> tensor<1x2x5x5xi8> {
  %pads = "onnx.Constant"() {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>} : () -> tensor<8xi64>
  %zp = "onnx.Constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %r = "onnx.Pad"(%x, %pads, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x2x3x3xi8>, tensor<8xi64>, tensor<i8>) -> tensor<1x2x5x5xi8>
  func.return %r : tensor<1x2x5x5xi8>
}
// CHECK:      func.func @conv_padding(%x: tensor<1x2x3x3xi8>) -> tensor<1x2x5x5xi8> {
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<1x2x5x5xi8>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<1x2x5x5xi8>) {
// CHECK-NEXT:   ^bb0(%{{.*}}: i8):
// CHECK-NEXT:     %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:     %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT:     %[[H:.*]] = linalg.index 2 : index
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[HS:.*]] = arith.subi %[[H]], %[[ONE]] : index
// CHECK-NEXT:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[HLO:.*]] = arith.maxsi %[[HS]], %[[ZERO]] : index
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[HC:.*]] = arith.minsi %[[HLO]], %[[TWO]] : index
// CHECK-NEXT:     %[[HIN:.*]] = arith.cmpi eq, %[[HS]], %[[HC]] : index
// CHECK-NEXT:     %[[W:.*]] = linalg.index 3 : index
// CHECK-NEXT:     %[[WS:.*]] = arith.subi %[[W]], %[[ONE]] : index
// CHECK-NEXT:     %[[WLO:.*]] = arith.maxsi %[[WS]], %[[ZERO]] : index
// CHECK-NEXT:     %[[WC:.*]] = arith.minsi %[[WLO]], %[[TWO]] : index
// CHECK-NEXT:     %[[WIN:.*]] = arith.cmpi eq, %[[WS]], %[[WC]] : index
// CHECK-NEXT:     %[[IN:.*]] = arith.andi %[[HIN]], %[[WIN]] : i1
// CHECK-NEXT:     %[[V:.*]] = tensor.extract %x[%[[N]], %[[C]], %[[HC]], %[[WC]]] : tensor<1x2x3x3xi8>
// CHECK-NEXT:     %[[PAD:.*]] = arith.constant -3 : i8
// CHECK-NEXT:     %[[Y:.*]] = arith.select %[[IN]], %[[V]], %[[PAD]] : i8
// CHECK-NEXT:     linalg.yield %[[Y]] : i8
// CHECK-NEXT:   } -> tensor<1x2x5x5xi8>
// CHECK-NEXT:   func.return %r : tensor<1x2x5x5xi8>
