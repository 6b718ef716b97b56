// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// requant from an i32 accumulator (scale 0.001) to i8 (scale 0.05, zero point -2), in i32 only:
// ratio 0.02 = 1374389535 * 2^-36 (a 31-bit multiplier), the 64-bit product as the two words of
// mulsi_extended, rounded half to even in the high word (n = 36 > 32):
// q = (high + 7 + b) >> 4, b = (low | (high & 16)) != 0 (inexact or odd), then zero point, clamp, narrow.

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
// CHECK-NEXT:     %7 = arith.constant 16 : i32
// CHECK-NEXT:     %8 = arith.constant 7 : i32
// CHECK-NEXT:     %9 = arith.constant -2 : i32
// CHECK-NEXT:     %10, %11 = arith.mulsi_extended %1, %5 : i32
// CHECK-NEXT:     %12 = arith.andi %11, %7 : i32
// CHECK-NEXT:     %13 = arith.ori %12, %10 : i32
// CHECK-NEXT:     %14 = arith.constant 0 : i32
// CHECK-NEXT:     %15 = arith.cmpi ne, %13, %14 : i32
// CHECK-NEXT:     %16 = arith.extui %15 : i1 to i32
// CHECK-NEXT:     %17 = arith.addi %11, %8 : i32
// CHECK-NEXT:     %18 = arith.addi %17, %16 : i32
// CHECK-NEXT:     %19 = arith.shrsi %18, %6 : i32
// CHECK-NEXT:     %20 = arith.addi %19, %9 : i32
// CHECK-NEXT:     %21 = arith.maxsi %20, %3 : i32
// CHECK-NEXT:     %22 = arith.minsi %21, %4 : i32
// CHECK-NEXT:     %23 = arith.trunci %22 : i32 to i8
// CHECK-NEXT:     linalg.yield %23 : i8
// CHECK-NOT:  i64
// CHECK-NOT:  arith.mulf
