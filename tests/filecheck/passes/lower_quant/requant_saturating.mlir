// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// Ratio 2 (0.001 / 0.0005) from an i32 accumulator: 2 d overflows an i32, so the input is first
// clamped to [-63, 65], the d beyond which every result is already -128 (2 * -63 - 3 = -129) or
// 127 (2 * 65 - 3 = 127); then one i32 multiply, no rounding (n = 0).

func.func @requant_saturating(%acc: tensor<8x!quant.uniform<i32:f32, 0.001>>) -> tensor<8x!quant.uniform<i8:f32, 0.0005:-3>> {
  %r = quant.requant %acc : tensor<8x!quant.uniform<i32:f32, 0.001>> to tensor<8x!quant.uniform<i8:f32, 0.0005:-3>>
  func.return %r : tensor<8x!quant.uniform<i8:f32, 0.0005:-3>>
}
// The largest result, 2 * 65 - 3 = 127, is max_out: only the low side of the output clamp remains.

// CHECK:        ^bb0(%1: i32, %2: i8):
// CHECK-NEXT:     %3 = arith.constant -128 : i32
// CHECK-NEXT:     %4 = arith.constant -63 : i32
// CHECK-NEXT:     %5 = arith.constant 65 : i32
// CHECK-NEXT:     %6 = arith.constant 2 : i32
// CHECK-NEXT:     %7 = arith.constant -3 : i32
// CHECK-NEXT:     %8 = arith.maxsi %1, %4 : i32
// CHECK-NEXT:     %9 = arith.minsi %8, %5 : i32
// CHECK-NEXT:     %10 = arith.muli %9, %6 : i32
// CHECK-NEXT:     %11 = arith.addi %10, %7 : i32
// CHECK-NEXT:     %12 = arith.maxsi %11, %3 : i32
// CHECK-NEXT:     %13 = arith.trunci %12 : i32 to i8
// CHECK-NEXT:     linalg.yield %13 : i8
