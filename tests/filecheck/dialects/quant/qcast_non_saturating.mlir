// RUN: bitfold-opt %s | filecheck %s
// RUN: bitfold-opt %s | bitfold-opt | filecheck %s

// ONNX QuantizeLinear to float8 with saturate = 0: a qcast marked `non_saturating` (overflow to the
// format's infinity or NaN instead of its largest finite value).

func.func @non_saturating(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<f8E5M2:f32, 5.000000e-01>> {
  %q = quant.qcast %x {non_saturating} : tensor<4xf32> to tensor<4x!quant.uniform<f8E5M2:f32, 5.000000e-01>>
  func.return %q : tensor<4x!quant.uniform<f8E5M2:f32, 5.000000e-01>>
}

// CHECK: %q = quant.qcast %x {non_saturating} : tensor<4xf32> to tensor<4x!quant.uniform<f8E5M2:f32, 5.000000e-01>>
