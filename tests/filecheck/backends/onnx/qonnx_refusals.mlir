// RUN: not bitfold-opt %s -t onnx-qonnx 2>&1 | filecheck %s

// A blocked (sub-channel) quantization: QONNX's Quant broadcasts its scale, it has no blocks.
func.func @f(%x: tensor<2x4xf32> {onnx.name = "x"}) -> (tensor<2x4xf32> {onnx.name = "y"}) {
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i4:f32:{0:1, 1:2}, {{0.5, 0.25}, {0.125, 0.0625}}>> loc("act_q")
  %y = quant.dcast %q : tensor<2x4x!quant.uniform<i4:f32:{0:1, 1:2}, {{0.5, 0.25}, {0.125, 0.0625}}>> to tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
// CHECK: error: QONNX cannot express the sub-channel type {{.*}} at node 'act_q'; QDQ can
