// A fake-quantized layer as the quant dialect holds it: int8 activations (per tensor, zero
// point -3), 4-bit per-channel weights in i8 storage (QCDQ's Clip to [-8, 7]), and a
// requantization the canonicalizer can prove exact.
func.func @layer(%x: tensor<1x4xf32>, %w: tensor<4x3x!quant.uniform<i8<-8:7>:f32:1, {0.05, 0.025, 0.0125}>>) -> tensor<1x4xf32> {
  %xq = quant.qcast %x : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 0.1:-3>>
  %xd = quant.dcast %xq : tensor<1x4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<1x4xf32>
  // Quantizing the dequantized values again with the same type is the identity: folded.
  %xq2 = quant.qcast %xd : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 0.1:-3>>
  %xd2 = quant.dcast %xq2 : tensor<1x4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<1x4xf32>
  %wd = quant.dcast %w : tensor<4x3x!quant.uniform<i8<-8:7>:f32:1, {0.05, 0.025, 0.0125}>> to tensor<4x3xf32>
  func.return %xd2 : tensor<1x4xf32>
}
