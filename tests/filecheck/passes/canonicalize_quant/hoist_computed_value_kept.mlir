// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Data movement between a float compute op and its quantizer is not the graph input's: the
// qcast stays where quant-to-integer looks for it.
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2x!quant.uniform<i8:f32, 0.5>> {
  %r = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "onnx.Transpose"(%r) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %q = quant.qcast %t : tensor<3x2xf32> to tensor<3x2x!quant.uniform<i8:f32, 0.5>>
  func.return %q : tensor<3x2x!quant.uniform<i8:f32, 0.5>>
}
// CHECK:      %t = "onnx.Transpose"(%r)
// CHECK-NEXT: %q = quant.qcast %t
