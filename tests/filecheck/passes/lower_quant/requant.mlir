// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// requant from an i32 accumulator (scale 0.001) to i8 (scale 0.05, zero point -2), in i32 only:
// ratio 0.02 = 1374389535 * 2^-36 (a 31-bit multiplier), the 64-bit product as the two words of
// mulsi_extended, rounded in the high word (n = 36 > 32). M is odd and |d| < 2^35, so no tie
// can occur and half to even is half up: q = (high + 8) >> 4 (the low word unread), then zero
// point, clamp, narrow.

func.func @requant(%acc: tensor<4x!quant.uniform<i32:f32, 0.001>>) -> tensor<4x!quant.uniform<i8:f32, 0.05:-2>> {
  %r = quant.requant %acc : tensor<4x!quant.uniform<i32:f32, 0.001>> to tensor<4x!quant.uniform<i8:f32, 0.05:-2>>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.05:-2>>
}

// CHECK:      func.func @requant(%acc: tensor<4xi32>) -> tensor<4xi8> {
// CHECK:        ^bb0(%1: i32, %2: i8):
// CHECK-NEXT:     %3 = arith.constant -128 : i32
// CHECK-NEXT:     %4 = arith.constant 127 : i32
// CHECK-NEXT:     %5 = arith.constant 1374389535 : i32
// CHECK-NEXT:     %6 = arith.constant 4 : i32
// CHECK-NEXT:     %7 = arith.constant 8 : i32
// CHECK-NEXT:     %8 = arith.constant -2 : i32
// CHECK-NEXT:     %9, %10 = arith.mulsi_extended %1, %5 : i32
// CHECK-NEXT:     %11 = arith.addi %10, %7 : i32
// CHECK-NEXT:     %12 = arith.shrsi %11, %6 : i32
// CHECK-NEXT:     %13 = arith.addi %12, %8 : i32
// CHECK-NEXT:     %14 = arith.maxsi %13, %3 : i32
// CHECK-NEXT:     %15 = arith.minsi %14, %4 : i32
// CHECK-NEXT:     %16 = arith.trunci %15 : i32 to i8
// CHECK-NEXT:     linalg.yield %16 : i8
// CHECK-NOT:  i64
// CHECK-NOT:  arith.mulf

// A per-channel table whose shifts straddle 32: ratios 1001 * 2^-20 and 4000001 * 2^-44 (i16
// input, output scale 1). The n = 20 entry is lifted to (1001 * 2^13, 33), the same ratio, so
// both round in the high word: q = (high + 2^(k-1)) >> k with k = 1 and 12; the reduced
// exponents 20 and 44 exceed |d| < 2^15 by more than one bit, so no tie can occur. No select,
// no low word read.

func.func @straddle(%acc: tensor<2x!quant.uniform<i16:f32:0, {0.00095462799072265625, 2.2737373228665092E-7}>>) -> tensor<2x!quant.uniform<i8:f32, 1.0:3>> {
  %r = quant.requant %acc : tensor<2x!quant.uniform<i16:f32:0, {0.00095462799072265625, 2.2737373228665092E-7}>> to tensor<2x!quant.uniform<i8:f32, 1.0:3>>
  func.return %r : tensor<2x!quant.uniform<i8:f32, 1.0:3>>
}

// CHECK:      func.func @straddle(%acc: tensor<2xi16>) -> tensor<2xi8> {
// CHECK-NEXT:   %0 = arith.constant dense<[8200192, 4000001]> : tensor<2xi32>
// CHECK-NEXT:   %1 = arith.constant dense<[1, 12]> : tensor<2xi32>
// CHECK-NEXT:   %2 = arith.constant dense<[1, 2048]> : tensor<2xi32>
// CHECK:        ^bb0(%4: i16, %5: i32, %6: i32, %7: i32, %8: i8):
// CHECK-NEXT:     %9 = arith.constant 3 : i32
// CHECK-NEXT:     %10 = arith.extsi %4 : i16 to i32
// CHECK-NEXT:     %11, %12 = arith.mulsi_extended %10, %5 : i32
// CHECK-NEXT:     %13 = arith.addi %12, %7 : i32
// CHECK-NEXT:     %14 = arith.shrsi %13, %6 : i32
// CHECK-NEXT:     %15 = arith.addi %14, %9 : i32
// CHECK-NEXT:     %16 = arith.trunci %15 : i32 to i8
// CHECK-NEXT:     linalg.yield %16 : i8
// CHECK-NOT:  arith.select
