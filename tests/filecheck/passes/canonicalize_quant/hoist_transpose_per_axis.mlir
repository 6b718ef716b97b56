// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Per-axis quantization of the transposed input's dimension 1 is quantization of the
// argument's dimension perm[1] = 3 with the same scales; the rounding mode moves with it.
func.func @f(%x: tensor<1x2x2x3xf32>) -> tensor<1x3x2x2x!quant.uniform<i8:f32:1, {0.1:-3, 0.2, 0.3:5}>> {
  %t = "onnx.Transpose"(%x) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x3xf32>) -> tensor<1x3x2x2xf32>
  %q = quant.qcast %t {rounding = "floor"} : tensor<1x3x2x2xf32> to tensor<1x3x2x2x!quant.uniform<i8:f32:1, {0.1:-3, 0.2, 0.3:5}>>
  func.return %q : tensor<1x3x2x2x!quant.uniform<i8:f32:1, {0.1:-3, 0.2, 0.3:5}>>
}
// CHECK:      %[[Q:.*]] = quant.qcast %x {rounding = "floor"} : tensor<1x2x2x3xf32> to tensor<1x2x2x3x!quant.uniform<i8:f32:3, {1.000000e-01:-3,2.000000e-01,3.000000e-01:5}>>
// CHECK-NEXT: %[[M:.*]] = "onnx.Transpose"(%[[Q]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x3x!quant.uniform<i8:f32:3, {1.000000e-01:-3,2.000000e-01,3.000000e-01:5}>>) -> tensor<1x3x2x2x!quant.uniform<i8:f32:1, {1.000000e-01:-3,2.000000e-01,3.000000e-01:5}>>
// CHECK-NEXT: func.return %[[M]]
