// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A u32 input: its values from 2^31 up do not fit an i32, and neither does d = q - 12345 in
// [-12345, 2^32 - 12346] (no clamp helps: 2^32 * 0.0001 / 0.3 is far inside the i32 output), so
// the body is the one-word form in i64: 91625969 * 2^-38 = 0.0001 / 0.3, rem = t & (2^38 - 1),
// toward zero (it reads rem != 0 only: no half constant).

func.func @requant_u32(%x: tensor<8x!quant.uniform<u32:f32, 0.0001:12345>>) -> tensor<8x!quant.uniform<i32:f32, 0.3:-9>> {
  %r = quant.requant %x {rounding = "toward_zero"} : tensor<8x!quant.uniform<u32:f32, 0.0001:12345>> to tensor<8x!quant.uniform<i32:f32, 0.3:-9>>
  func.return %r : tensor<8x!quant.uniform<i32:f32, 0.3:-9>>
}

// CHECK:        ^bb0(%1: i32, %2: i32):
// CHECK-NEXT:     %3 = arith.constant -2147483648 : i64
// CHECK-NEXT:     %4 = arith.constant 2147483647 : i64
// CHECK-NEXT:     %5 = arith.constant 12345 : i64
// CHECK-NEXT:     %6 = arith.constant 91625969 : i64
// CHECK-NEXT:     %7 = arith.constant 274877906943 : i64
// CHECK-NEXT:     %8 = arith.constant 38 : i64
// CHECK-NEXT:     %9 = arith.constant -9 : i64
// CHECK-NEXT:     %10 = arith.extui %1 : i32 to i64
// CHECK-NEXT:     %11 = arith.subi %10, %5 : i64
// CHECK-NEXT:     %12 = arith.muli %11, %6 : i64
// CHECK-NEXT:     %13 = arith.andi %12, %7 : i64
// CHECK-NEXT:     %14 = arith.constant 0 : i64
// CHECK-NEXT:     %15 = arith.cmpi ne, %13, %14 : i64
// CHECK-NEXT:     %16 = arith.shrsi %12, %8 : i64
// CHECK-NEXT:     %17 = arith.constant 0 : i64
// CHECK-NEXT:     %18 = arith.cmpi slt, %16, %17 : i64
// CHECK-NEXT:     %19 = arith.andi %15, %18 : i1
// CHECK-NEXT:     %20 = arith.extui %19 : i1 to i64
// CHECK-NEXT:     %21 = arith.addi %16, %20 : i64
// CHECK-NEXT:     %22 = arith.addi %21, %9 : i64
// CHECK-NEXT:     %23 = arith.maxsi %22, %3 : i64
// CHECK-NEXT:     %24 = arith.minsi %23, %4 : i64
// CHECK-NEXT:     %25 = arith.trunci %24 : i64 to i32
// CHECK-NEXT:     linalg.yield %25 : i32
