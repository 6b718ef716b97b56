// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Constant padding with 0.0 (the absent constant_value) becomes padding with the zero point:
// dcast(1) = (1 - 1) * 0.25 = 0.0 exactly.
func.func @f(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %pads = "onnx.Constant"() {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>} : () -> tensor<8xi64>
  %q = quant.qcast %x : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<u8:f32, 0.25:1>>
  %d = quant.dcast %q : tensor<1x1x2x2x!quant.uniform<u8:f32, 0.25:1>> to tensor<1x1x2x2xf32>
  %p = "onnx.Pad"(%d, %pads) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {mode = "constant"} : (tensor<1x1x2x2xf32>, tensor<8xi64>) -> tensor<1x1x4x4xf32>
  func.return %p : tensor<1x1x4x4xf32>
}
// CHECK:      %q = quant.qcast %x
// CHECK-NEXT: %pad_value = "onnx.Constant"() {value = dense<1> : tensor<ui8>} : () -> tensor<ui8>
// CHECK-NEXT: %p = "onnx.Pad"(%q, %pads, %pad_value) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x1x2x2x!quant.uniform<u8:f32, 2.500000e-01:1>>, tensor<8xi64>, tensor<ui8>) -> tensor<1x1x4x4x!quant.uniform<u8:f32, 2.500000e-01:1>>
// CHECK-NEXT: %p_1 = quant.dcast %p : tensor<1x1x4x4x!quant.uniform<u8:f32, 2.500000e-01:1>> to tensor<1x1x4x4xf32>
// CHECK-NEXT: func.return %p_1
