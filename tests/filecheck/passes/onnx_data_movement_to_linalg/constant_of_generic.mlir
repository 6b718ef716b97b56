// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// An integer onnx.Constant read by a generic (quant-to-integer's Mul by a quantized constant) gives
// it an arith.constant of the same value; an ONNX op reading it keeps the onnx.Constant.

func.func @f(%x: tensor<4xi8>) -> (tensor<4xi32>, tensor<8xi8>) {
  %c = "onnx.Constant"() {value = dense<127> : tensor<1xi8>} : () -> tensor<1xi8>
  %repeats = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = tensor.empty() : tensor<4xi32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %c : tensor<4xi8>, tensor<1xi8>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %p = arith.muli %a, %b : i8
    %w = arith.extsi %p : i8 to i32
    linalg.yield %w : i32
  } -> tensor<4xi32>
  %r = "onnx.Tile"(%x, %repeats) : (tensor<4xi8>, tensor<1xi64>) -> tensor<8xi8>
  func.return %y, %r : tensor<4xi32>, tensor<8xi8>
}

// CHECK-LABEL: func.func @f
// CHECK-NOT:   "onnx.Constant"() {value = dense<127>
// CHECK:       %[[C:.*]] = arith.constant dense<127> : tensor<1xi8>
// CHECK:       linalg.generic {{.*}} ins(%x, %[[C]] : tensor<4xi8>, tensor<1xi8>)
// CHECK:       tensor.expand_shape %x
// CHECK-NOT:   onnx.
