// RUN: not bitfold-opt %s -t onnx-qdq --split-input-file 2>&1 | filecheck %s

// QuantizeLinear rounds half to even: a ceil qcast is QONNX's.
func.func @f(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
  %q = quant.qcast %x {rounding = "ceil"} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.25>> loc("act_q")
  %y = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.25>> to tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: error: QDQ cannot express rounding 'ceil' at node 'act_q'; QONNX (Quant) can
