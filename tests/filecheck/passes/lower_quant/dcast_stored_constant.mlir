// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A float island's weights: the dcast of a stored `onnx.Constant` (what quant-to-integer leaves
// where a Conv stays float). The stored integers become an `arith.constant` the dcast's generic
// reads, so no ONNX op is left for the backends.

func.func @weights() -> tensor<2x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[1, -2], [3, -4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %s = quant.scast %w : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  %x = quant.dcast %s : tensor<2x2x!quant.uniform<i8:f32, 0.5>> to tensor<2x2xf32>
  func.return %x : tensor<2x2xf32>
}

// CHECK:      func.func @weights() -> tensor<2x2xf32> {
// CHECK-NOT:    onnx.Constant
// CHECK:        %{{.*}} = arith.constant dense<{{\[}}[1, -2], [3, -4]]> : tensor<2x2xi8>
// CHECK-NOT:    onnx.Constant
// CHECK:        linalg.generic
// CHECK:          arith.sitofp
// CHECK:          arith.mulf
