// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A power-of-two ratio (0.5 / 2.0 = 2^-2) is a plain rounding shift in one i32 word: no
// multiply; rem = d & 3 against half = 2, then QONNX order (zero point before the rounding
// decision) with half away from zero.

func.func @requant_shift(%x: tensor<8x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<8x!quant.uniform<i4:f32, 2.0:1>> {
  %r = quant.requant %x {rounding = "half_away_from_zero", zero_point_first} : tensor<8x!quant.uniform<i8:f32, 0.5:-1>> to tensor<8x!quant.uniform<i4:f32, 2.0:1>>
  func.return %r : tensor<8x!quant.uniform<i4:f32, 2.0:1>>
}

// CHECK:        ^bb0(%1: i8, %2: i4):
// CHECK-NEXT:     %3 = arith.constant -8 : i32
// CHECK-NEXT:     %4 = arith.constant 7 : i32
// CHECK-NEXT:     %5 = arith.constant -1 : i32
// CHECK-NEXT:     %6 = arith.constant 3 : i32
// CHECK-NEXT:     %7 = arith.constant 2 : i32
// CHECK-NEXT:     %8 = arith.constant 2 : i32
// CHECK-NEXT:     %9 = arith.constant 1 : i32
// CHECK-NEXT:     %10 = arith.extsi %1 : i8 to i32
// CHECK-NEXT:     %11 = arith.subi %10, %5 : i32
// CHECK-NEXT:     %12 = arith.andi %11, %6 : i32
// CHECK-NEXT:     %13 = arith.cmpi sgt, %12, %7 : i32
// CHECK-NEXT:     %14 = arith.cmpi eq, %12, %7 : i32
// CHECK-NEXT:     %15 = arith.shrsi %11, %8 : i32
// CHECK-NEXT:     %16 = arith.addi %15, %9 : i32
// CHECK-NEXT:     %17 = arith.constant 0 : i32
// CHECK-NEXT:     %18 = arith.cmpi sge, %16, %17 : i32
// CHECK-NEXT:     %19 = arith.andi %14, %18 : i1
// CHECK-NEXT:     %20 = arith.ori %13, %19 : i1
// CHECK-NEXT:     %21 = arith.extui %20 : i1 to i32
// CHECK-NEXT:     %22 = arith.addi %16, %21 : i32
// CHECK-NEXT:     %23 = arith.maxsi %22, %3 : i32
// CHECK-NEXT:     %24 = arith.minsi %23, %4 : i32
// CHECK-NEXT:     %25 = arith.trunci %24 : i32 to i4
// CHECK-NEXT:     linalg.yield %25 : i4
