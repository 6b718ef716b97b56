// RUN: not bitfold-opt %s -t onnx-qonnx 2>&1 | filecheck %s

// An ONNX-order qcast with zero point 3: QONNX adds the zero point in float before rounding,
// and [0 - 3, 255 - 3] is no QONNX range.
func.func @f(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.25:3>> loc("act_q")
  %y = quant.dcast %q : tensor<4x!quant.uniform<u8:f32, 0.25:3>> to tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: error: QONNX cannot express the range [-3, 252] (the ONNX-order qcast's range shifted by its zero point) of !quant.uniform<u8:f32, 2.500000e-01:3> at node 'act_q'; QCDQ or QDQ can
