// RUN: not bitfold-opt %s -p lower-quant 2>&1 | filecheck %s

// A qcast to float storage has no integer lowering yet (requantizations to and from it are tables, in
// quant-to-integer): one line, never the integer qcast's formula applied to float8 bits.

func.func @f(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<f8E4M3FN:f32, 0.5>> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<f8E4M3FN:f32, 0.5>>
  func.return %q : tensor<4x!quant.uniform<f8E4M3FN:f32, 0.5>>
}

// CHECK: error: 'quant.qcast' op lower-quant: 'quant.qcast' to or from float storage (!quant.uniform<f8E4M3FN:f32, 5.000000e-01>) has no integer lowering yet
