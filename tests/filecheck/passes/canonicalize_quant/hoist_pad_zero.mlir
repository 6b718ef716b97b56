// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Padding the input with 0.0 before its quantizer is padding the stored input with the zero
// point: qcast(0.0) = 0 + 3 = 3 and dcast(3) = 0.0.
func.func @f(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4x!quant.uniform<i8:f32, 0.25:3>> {
  %pads = "onnx.Constant"() {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>} : () -> tensor<8xi64>
  %p = "onnx.Pad"(%x, %pads) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {mode = "constant"} : (tensor<1x1x2x2xf32>, tensor<8xi64>) -> tensor<1x1x4x4xf32>
  %q = quant.qcast %p : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!quant.uniform<i8:f32, 0.25:3>>
  func.return %q : tensor<1x1x4x4x!quant.uniform<i8:f32, 0.25:3>>
}
// CHECK:      %pad_value = "onnx.Constant"() {value = dense<3> : tensor<i8>} : () -> tensor<i8>
// CHECK-NEXT: %[[Q:.*]] = quant.qcast %x : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<i8:f32, 2.500000e-01:3>>
// CHECK-NEXT: %[[M:.*]] = "onnx.Pad"(%[[Q]], %pads, %pad_value) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x1x2x2x!quant.uniform<i8:f32, 2.500000e-01:3>>, tensor<8xi64>, tensor<i8>) -> tensor<1x1x4x4x!quant.uniform<i8:f32, 2.500000e-01:3>>
// CHECK-NEXT: func.return %[[M]]
