// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A Slice that cuts the quantized axis (channel 1 of 0..1) would need the scale list cut
// too: the Slice stays on floats.
func.func @f(%x: tensor<1x2xf32>) -> tensor<1x1xf32> {
  %starts = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %q = quant.qcast %x : tensor<1x2xf32> to tensor<1x2x!quant.uniform<i8:f32:1, {0.1, 0.2:4}>>
  %d = quant.dcast %q : tensor<1x2x!quant.uniform<i8:f32:1, {0.1, 0.2:4}>> to tensor<1x2xf32>
  %s = "onnx.Slice"(%d, %starts, %ends, %axes) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<1x2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x1xf32>
  func.return %s : tensor<1x1xf32>
}
// CHECK:      %d = quant.dcast %q
// CHECK-NEXT: %s = "onnx.Slice"(%d, %starts, %ends, %axes)
