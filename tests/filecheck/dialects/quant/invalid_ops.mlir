// RUN: bitfold-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One diagnostic per invalid cast; the wording is upstream MLIR's (checked against mlir-opt-22),
// except for bitfold's own quant.requant and rounding attribute.


func.func @f(%a: tensor<4xf32>) {
  %0 = quant.qcast %a : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:1, {1.0, 2.0}>>
  func.return
}
// CHECK: quantized dimension must be less than tensor rank

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = quant.qcast %a : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:0, {1.0, 2.0}>>
  func.return
}
// CHECK: quantized dimension size does not match number of scales

// -----

func.func @f(%a: f32) {
  %0 = quant.qcast %a : f32 to !quant.uniform<i8:f32:0, {1.0, 2.0}>
  func.return
}
// CHECK: scalar types may not use per-axis quantization

// -----

func.func @f(%a: tensor<2x4xf32>) {
  %0 = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:3}, {{1.0, 2.0}, {1.0, 2.0}}>>
  func.return
}
// CHECK: tensor dimension size 4 at axis 1 must be divisible by the corresponding block size 3

// -----

func.func @f(%a: tensor<2x4xf32>) {
  %0 = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32:{0:1, 2:2}, {{1.0, 2.0}, {1.0, 2.0}}>>
  func.return
}
// CHECK: quantized dimension 2 must be less than tensor rank 2

// -----

func.func @f(%a: tensor<2x4xf32>) {
  %0 = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {1.0, 2.0}>>
  func.return
}
// CHECK: Rank of scales 1 must match the rank of the tensor 2

// -----

func.func @f(%a: tensor<2x4xf32>) {
  %0 = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {{1.0, 2.0, 3.0}, {1.0, 2.0, 4.0}}>>
  func.return
}
// CHECK: dimension size 3 of scales tensor at axis 1 should match (tensor dimension at axis / block sizes at axis) = 2

// -----

func.func @f(%a: tensor<2x4xf32>) {
  %0 = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{1.0, 1.0}, {1.0, 1.0}}>>
  func.return
}
// CHECK: dimension size 2 of scales tensor at axis 0 should match (tensor dimension at axis / block sizes at axis) = 1

// -----

func.func @f(%a: tensor<4xf64>) {
  %0 = quant.qcast %a : tensor<4xf64> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  func.return
}
// CHECK: expressed type in quantized type expected to match float type

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = quant.qcast %a : tensor<4xf32> to tensor<5x!quant.uniform<i8:f32, 1.0>>
  func.return
}
// CHECK: failed to verify that input and result are both scalars or both tensors with matching shape

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = quant.qcast %a : tensor<4xf32> to tensor<4xi8>
  func.return
}
// CHECK: result #0 must be scalar or tensor of quantized type, but got 'tensor<4xi8>'

// -----

func.func @f(%a: tensor<4xi8>) {
  %0 = quant.qcast %a : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  func.return
}
// CHECK: operand #0 must be scalar or tensor of floating-point, but got 'tensor<4xi8>'

// -----

func.func @f(%a: tensor<4x!quant.uniform<i8:f32, 1.0>>) {
  %0 = quant.dcast %a : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4xf16>
  func.return
}
// CHECK: expressed type in quantized type expected to match float type

// -----

func.func @f(%a: tensor<4x!quant.uniform<i8:f32:0, {1.0, 2.0}>>) {
  %0 = quant.dcast %a : tensor<4x!quant.uniform<i8:f32:0, {1.0, 2.0}>> to tensor<4xf32>
  func.return
}
// CHECK: quantized dimension size does not match number of scales

// -----

func.func @f(%a: tensor<4xi16>) {
  %0 = quant.scast %a : tensor<4xi16> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  func.return
}
// CHECK: storage type in quantized type expected to match integer type

// -----

func.func @f(%a: tensor<4xi8>) {
  %0 = quant.scast %a : tensor<4xi8> to tensor<5x!quant.uniform<i8:f32, 1.0>>
  func.return
}
// CHECK: failed to verify that input and result are both scalars or both tensors with matching shape

// -----

func.func @f(%a: tensor<4xi8>) {
  %0 = quant.scast %a : tensor<4xi8> to tensor<4x!quant.bipolar<f32, 1.0>>
  func.return
}
// CHECK: storage type in quantized type expected to match integer type

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = quant.qcast %a {rounding = "stochastic"} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  func.return
}
// CHECK: unknown rounding mode 'stochastic' (expected one of half_to_even, half_away_from_zero, half_toward_zero, away_from_zero, toward_zero, ceil, floor)

// -----

func.func @f(%a: tensor<4x!quant.uniform<i32:f32, 1.0>>) {
  %0 = quant.requant %a : tensor<4x!quant.uniform<i32:f32, 1.0>> to tensor<4x!quant.uniform<i8:f16, 1.0>>
  func.return
}
// CHECK: input and result quantized types must have the same expressed type

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = quant.requant %a : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  func.return
}
// CHECK: operand #0 must be scalar or tensor of uniform quantized type, but got 'tensor<4xf32>'

// -----

func.func @f(%a: tensor<4xsi8>) {
  %0 = quant.scast %a : tensor<4xsi8> to tensor<4x!quant.uniform<u8:f32, 1.0>>
  func.return
}
// CHECK: storage type in quantized type expected to match integer type
