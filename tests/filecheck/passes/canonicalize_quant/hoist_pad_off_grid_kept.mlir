// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A pad value off the quantization grid (0.1 with scale 0.25) is no stored value: the Pad
// stays on floats.
func.func @f(%x: tensor<1x2xf32>) -> tensor<1x4x!quant.uniform<i8:f32, 0.25>> {
  %pads = "onnx.Constant"() {value = dense<[0, 1, 0, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %c = "onnx.Constant"() {value = dense<0.1> : tensor<f32>} : () -> tensor<f32>
  %p = "onnx.Pad"(%x, %pads, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x2xf32>, tensor<4xi64>, tensor<f32>) -> tensor<1x4xf32>
  %q = quant.qcast %p : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 0.25>>
  func.return %q : tensor<1x4x!quant.uniform<i8:f32, 0.25>>
}
// CHECK:      %p = "onnx.Pad"(%x, %pads, %c)
// CHECK-NEXT: %q = quant.qcast %p
