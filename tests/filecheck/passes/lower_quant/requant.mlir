// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// requant from an i32 accumulator (scale 0.001) to i8 (scale 0.05, zero point -2), in i32 only:
// ratio 0.02 = 1374389535 * 2^-36 (a 31-bit multiplier), the 64-bit product as the two words of
// mulsi_extended, floor = high >> 4, the remainder (high & 15, low) compared with 2^35 = (8, 0)
// for the half-to-even rule, zero point, clamp, narrow.

func.func @requant(%acc: tensor<4x!quant.uniform<i32:f32, 0.001>>) -> tensor<4x!quant.uniform<i8:f32, 0.05:-2>> {
  %r = quant.requant %acc : tensor<4x!quant.uniform<i32:f32, 0.001>> to tensor<4x!quant.uniform<i8:f32, 0.05:-2>>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.05:-2>>
}

// CHECK:      func.func @requant(%acc: tensor<4xi32>) -> tensor<4xi8> {
// CHECK:        ^bb0(%1: i32, %2: i8):
// CHECK-NEXT:     %3 = arith.constant -128 : i32
// CHECK-NEXT:     %4 = arith.constant 127 : i32
// CHECK-NEXT:     %5 = arith.constant 1374389535 : i32
// CHECK-NEXT:     %6 = arith.constant 15 : i32
// CHECK-NEXT:     %7 = arith.constant 8 : i32
// CHECK-NEXT:     %8 = arith.constant 0 : i32
// CHECK-NEXT:     %9 = arith.constant 4 : i32
// CHECK-NEXT:     %10 = arith.constant -2 : i32
// CHECK-NEXT:     %11, %12 = arith.mulsi_extended %1, %5 : i32
// CHECK-NEXT:     %13 = arith.andi %12, %6 : i32
// CHECK-NEXT:     %14 = arith.cmpi eq, %13, %7 : i32
// CHECK-NEXT:     %15 = arith.cmpi sgt, %13, %7 : i32
// CHECK-NEXT:     %16 = arith.cmpi ugt, %11, %8 : i32
// CHECK-NEXT:     %17 = arith.cmpi eq, %11, %8 : i32
// CHECK-NEXT:     %18 = arith.andi %14, %16 : i1
// CHECK-NEXT:     %19 = arith.ori %15, %18 : i1
// CHECK-NEXT:     %20 = arith.andi %14, %17 : i1
// CHECK-NEXT:     %21 = arith.shrsi %12, %9 : i32
// CHECK-NEXT:     %22 = arith.constant 0 : i32
// CHECK-NEXT:     %23 = arith.constant 1 : i32
// CHECK-NEXT:     %24 = arith.andi %21, %23 : i32
// CHECK-NEXT:     %25 = arith.cmpi ne, %24, %22 : i32
// CHECK-NEXT:     %26 = arith.andi %20, %25 : i1
// CHECK-NEXT:     %27 = arith.ori %19, %26 : i1
// CHECK-NEXT:     %28 = arith.extui %27 : i1 to i32
// CHECK-NEXT:     %29 = arith.addi %21, %28 : i32
// CHECK-NEXT:     %30 = arith.addi %29, %10 : i32
// CHECK-NEXT:     %31 = arith.maxsi %30, %3 : i32
// CHECK-NEXT:     %32 = arith.minsi %31, %4 : i32
// CHECK-NEXT:     %33 = arith.trunci %32 : i32 to i8
// CHECK-NEXT:     linalg.yield %33 : i8
// CHECK-NOT:  i64
// CHECK-NOT:  arith.mulf
