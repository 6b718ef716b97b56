// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Conv padding (1 before and after H and W) with the zero point -3: a generic filling the padded
// shape with -3, then a generic over the input's shape writing each element 1 row and 1 column
// further in (output map offset by the begin pads), updating the filled tensor.

func.func @conv_padding(%x: tensor<1x2x3x3xi8>) -> tensor<1x2x5x5xi8> {
  %pads = "onnx.Constant"() {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>} : () -> tensor<8xi64>
  %zp = "onnx.Constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %r = "onnx.Pad"(%x, %pads, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x2x3x3xi8>, tensor<8xi64>, tensor<i8>) -> tensor<1x2x5x5xi8>
  func.return %r : tensor<1x2x5x5xi8>
}
// CHECK:      func.func @conv_padding(%x: tensor<1x2x3x3xi8>) -> tensor<1x2x5x5xi8> {
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<1x2x5x5xi8>
// CHECK-NEXT:   %[[F:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<1x2x5x5xi8>) {
// CHECK-NEXT:   ^bb0(%{{.*}}: i8):
// CHECK-NEXT:     %[[PAD:.*]] = arith.constant -3 : i8
// CHECK-NEXT:     linalg.yield %[[PAD]] : i8
// CHECK-NEXT:   } -> tensor<1x2x5x5xi8>
// CHECK-NEXT:   %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + 1), (d3 + 1))>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x3x3xi8>) outs(%[[F]] : tensor<1x2x5x5xi8>) {
// CHECK-NEXT:   ^bb0(%[[V:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:     linalg.yield %[[V]] : i8
// CHECK-NEXT:   } -> tensor<1x2x5x5xi8>
// CHECK-NEXT:   func.return %r : tensor<1x2x5x5xi8>

// An axis padded only at its end keeps the generic over the padded shape with clamped reads.

func.func @end_only(%x: tensor<1x1x3x3xi8>) -> tensor<1x1x4x4xi8> {
  %pads = "onnx.Constant"() {value = dense<[0, 0, 0, 0, 0, 0, 1, 1]> : tensor<8xi64>} : () -> tensor<8xi64>
  %zp = "onnx.Constant"() {value = dense<5> : tensor<i8>} : () -> tensor<i8>
  %r = "onnx.Pad"(%x, %pads, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x1x3x3xi8>, tensor<8xi64>, tensor<i8>) -> tensor<1x1x4x4xi8>
  func.return %r : tensor<1x1x4x4xi8>
}
// CHECK:      func.func @end_only
// CHECK:        linalg.index 2 : index
// CHECK:        arith.minsi
// CHECK:        tensor.extract %x
// CHECK:        arith.select
