// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Reshape then Transpose of the input before its quantizer (keyword spotting): the qcast
// moves above both, and both run on the stored integers.
func.func @f(%x: tensor<1x12xf32>) -> tensor<1x3x4x1x!quant.uniform<i8:f32, 0.25:-1>> {
  %shape = "onnx.Constant"() {value = dense<[1, 4, 3, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %r = "onnx.Reshape"(%x, %shape) {allowzero = 0 : i64} : (tensor<1x12xf32>, tensor<4xi64>) -> tensor<1x4x3x1xf32>
  %t = "onnx.Transpose"(%r) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x3x1xf32>) -> tensor<1x3x4x1xf32>
  %q = quant.qcast %t : tensor<1x3x4x1xf32> to tensor<1x3x4x1x!quant.uniform<i8:f32, 0.25:-1>>
  func.return %q : tensor<1x3x4x1x!quant.uniform<i8:f32, 0.25:-1>>
}
// CHECK:      %shape = "onnx.Constant"()
// CHECK-NEXT: %[[Q:.*]] = quant.qcast %x : tensor<1x12xf32> to tensor<1x12x!quant.uniform<i8:f32, 2.500000e-01:-1>>
// CHECK-NEXT: %[[R:.*]] = "onnx.Reshape"(%[[Q]], %shape) {allowzero = 0 : i64} : (tensor<1x12x!quant.uniform<i8:f32, 2.500000e-01:-1>>, tensor<4xi64>) -> tensor<1x4x3x1x!quant.uniform<i8:f32, 2.500000e-01:-1>>
// CHECK-NEXT: %[[M:.*]] = "onnx.Transpose"(%[[R]]) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x3x1x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<1x3x4x1x!quant.uniform<i8:f32, 2.500000e-01:-1>>
// CHECK-NEXT: func.return %[[M]]
