// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// An i32 result at the i32 input's own scale and zero point (the QONNX 32-bit Quant of an
// accumulator): M = 1, n = 0, no zero point, and a clamp to the whole i32 range changes
// nothing, so no generic is built and the function returns its input.

func.func @requant_identity(%acc: tensor<8x!quant.uniform<i32:f32, 0.001>>) -> tensor<8x!quant.uniform<i32:f32, 0.001>> {
  %r = quant.requant %acc : tensor<8x!quant.uniform<i32:f32, 0.001>> to tensor<8x!quant.uniform<i32:f32, 0.001>>
  func.return %r : tensor<8x!quant.uniform<i32:f32, 0.001>>
}

// CHECK:      func.func @requant_identity(%acc: tensor<8xi32>) -> tensor<8xi32> {
// CHECK-NEXT:   func.return %acc : tensor<8xi32>
// CHECK-NEXT: }
