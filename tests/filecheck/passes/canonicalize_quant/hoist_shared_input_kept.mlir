// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A transposed input that something other than the qcast reads stays float (moving the
// qcast would copy the Transpose).
func.func @f(%x: tensor<2x3xf32>) -> (tensor<3x2x!quant.uniform<i8:f32, 0.5>>, tensor<3x2xf32>) {
  %t = "onnx.Transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %q = quant.qcast %t : tensor<3x2xf32> to tensor<3x2x!quant.uniform<i8:f32, 0.5>>
  func.return %q, %t : tensor<3x2x!quant.uniform<i8:f32, 0.5>>, tensor<3x2xf32>
}
// CHECK:      %t = "onnx.Transpose"(%x)
// CHECK-NEXT: %q = quant.qcast %t
