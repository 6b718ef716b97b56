// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Brevitas' weights-only QuantLSTM: W is the Concat of per-gate dequantized weights with their
// own scales (0.5 and 0.25), which no one quantized constant holds. The LSTM reads the float
// constant of its value instead ((q - 0) * s: 2 * 0.5, -4 * 0.5, 4 * 0.25, 8 * 0.25), and the
// Concat, dcasts, scasts and stored constants are gone; R, already a constant, stays.
func.func @f(%x: tensor<2x1x1xf32>) -> tensor<2x1x1x1xf32> {
  %c0 = "onnx.Constant"() {value = dense<[[2], [-4]]> : tensor<2x1xi8>} : () -> tensor<2x1xi8>
  %s0 = quant.scast %c0 : tensor<2x1xi8> to tensor<2x1x!quant.uniform<i8<-127:127>:f32, 0.5>>
  %d0 = quant.dcast %s0 : tensor<2x1x!quant.uniform<i8<-127:127>:f32, 0.5>> to tensor<2x1xf32>
  %c1 = "onnx.Constant"() {value = dense<[[4], [8]]> : tensor<2x1xi8>} : () -> tensor<2x1xi8>
  %s1 = quant.scast %c1 : tensor<2x1xi8> to tensor<2x1x!quant.uniform<i8<-127:127>:f32, 0.25>>
  %d1 = quant.dcast %s1 : tensor<2x1x!quant.uniform<i8<-127:127>:f32, 0.25>> to tensor<2x1xf32>
  %cat = "onnx.Concat"(%d0, %d1) {axis = 0 : i64} : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
  %axes = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %w = "onnx.Unsqueeze"(%cat, %axes) : (tensor<4x1xf32>, tensor<1xi64>) -> tensor<1x4x1xf32>
  %r = "onnx.Constant"() {value = dense<1.0> : tensor<1x4x1xf32>} : () -> tensor<1x4x1xf32>
  %y = "onnx.LSTM"(%x, %w, %r) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0>}> {direction = "forward", hidden_size = 1 : i64, input_forget = 0 : i64, layout = 0 : i64} : (tensor<2x1x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>) -> tensor<2x1x1x1xf32>
  func.return %y : tensor<2x1x1x1xf32>
}
// CHECK-NOT:  quant.
// CHECK-NOT:  onnx.Concat
// CHECK:      %r = "onnx.Constant"() {value = dense<1.000000e+00> : tensor<1x4x1xf32>}
// CHECK:      %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[\[}}1.000000e+00], [-2.000000e+00], [1.000000e+00], [2.000000e+00]]]> : tensor<1x4x1xf32>}
// CHECK-NEXT: %y = "onnx.LSTM"(%x, %[[W]], %r)
// CHECK-NOT:  onnx.Unsqueeze
