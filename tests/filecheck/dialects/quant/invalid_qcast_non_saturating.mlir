// RUN: bitfold-opt %s --verify-diagnostics | filecheck %s

// Integer storage always clamps: `non_saturating` is for float storage only.

func.func @integer(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01>> {
  %q = quant.qcast %x {non_saturating} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  func.return %q : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
}

// CHECK: 'non_saturating' applies to float storage only (integer storage always clamps)
