// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A Slice of a dequantized per-axis tensor runs on the stored integers: it cuts axis 2 and
// reads the quantized axis 1 whole, so the type keeps axis 1.
func.func @f(%x: tensor<1x2x6xf32>) -> tensor<1x2x2xf32> {
  %starts = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() {value = dense<5> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %steps = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %q = quant.qcast %x : tensor<1x2x6xf32> to tensor<1x2x6x!quant.uniform<i8:f32:1, {0.1, 0.2:4}>>
  %d = quant.dcast %q : tensor<1x2x6x!quant.uniform<i8:f32:1, {0.1, 0.2:4}>> to tensor<1x2x6xf32>
  %s = "onnx.Slice"(%d, %starts, %ends, %axes, %steps) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> : (tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x2xf32>
  func.return %s : tensor<1x2x2xf32>
}
// CHECK:      %q = quant.qcast %x
// CHECK-NEXT: %s = "onnx.Slice"(%q, %starts, %ends, %axes, %steps) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> : (tensor<1x2x6x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01:4}>>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x2x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01:4}>>
// CHECK-NEXT: %{{.*}} = quant.dcast %s
