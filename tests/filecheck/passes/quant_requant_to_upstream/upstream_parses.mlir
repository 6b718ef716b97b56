// REQUIRES: mlir-opt-22
// RUN: bitfold-opt %s -p quant-requant-to-upstream | mlir-opt-22 | filecheck %s

// What quant-requant-to-upstream writes, plain upstream mlir-opt-22 reads (no unregistered dialects):
// the exact ratio as upstream's casts, the rounding one in integer arith between storage casts.
// CHECK-LABEL: func.func @integer_ratio
// CHECK:         quant.dcast
// CHECK-NEXT:    quant.qcast
// CHECK-LABEL: func.func @rounding_ratio
// CHECK:         quant.scast
// CHECK:         linalg.generic
// CHECK:         quant.scast
// CHECK-NOT:   quant.requant
func.func @integer_ratio(%q: tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i16:f32, 0.125:3>> {
  %r = quant.requant %q : tensor<4x!quant.uniform<i8:f32, 0.5:1>> to tensor<4x!quant.uniform<i16:f32, 0.125:3>>
  func.return %r : tensor<4x!quant.uniform<i16:f32, 0.125:3>>
}

func.func @rounding_ratio(%q: tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.3>> {
  %r = quant.requant %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4x!quant.uniform<i8:f32, 0.3>>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.3>>
}
