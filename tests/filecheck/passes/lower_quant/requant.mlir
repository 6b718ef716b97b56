// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// requant from an i32 accumulator (scale 0.001) to i8 (scale 0.05, zero point -2): integer only,
// ratio 0.02 = 1374389535 * 2^-36 (a 31-bit multiplier), i64 product, rounding shift with the
// half-to-even tie rule, zero point, clamp, narrow.

func.func @requant(%acc: tensor<4x!quant.uniform<i32:f32, 0.001>>) -> tensor<4x!quant.uniform<i8:f32, 0.05:-2>> {
  %r = quant.requant %acc : tensor<4x!quant.uniform<i32:f32, 0.001>> to tensor<4x!quant.uniform<i8:f32, 0.05:-2>>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.05:-2>>
}

// CHECK:      func.func @requant(%acc: tensor<4xi32>) -> tensor<4xi8> {
// CHECK:          %5 = arith.constant 1374389535 : i64
// CHECK-NEXT:     %6 = arith.constant 36 : i64
// CHECK:          %10 = arith.extsi %1 : i32 to i64
// CHECK-NEXT:     %11 = arith.muli %10, %5 : i64
// CHECK:          %14 = arith.shrsi %11, %6 : i64
// CHECK:          %25 = arith.addi %24, %9 : i64
// CHECK-NEXT:     %26 = arith.maxsi %25, %3 : i64
// CHECK-NEXT:     %27 = arith.minsi %26, %4 : i64
// CHECK-NEXT:     %28 = arith.trunci %27 : i64 to i8
// CHECK-NOT:  arith.mulf
