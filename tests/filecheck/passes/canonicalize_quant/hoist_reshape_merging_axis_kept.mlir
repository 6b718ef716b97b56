// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A Reshape that splits the quantized dimension (6 -> 2x3, axis 1 has 3 channels of the
// result but none of the input) has no per-axis type for its input: nothing moves.
func.func @f(%x: tensor<1x6xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>> {
  %shape = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %shape) {allowzero = 0 : i64} : (tensor<1x6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %q = quant.qcast %r : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>
  func.return %q : tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>
}
// CHECK:      %r = "onnx.Reshape"(%x, %shape) {allowzero = 0 : i64} : (tensor<1x6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// CHECK-NEXT: %q = quant.qcast %r
