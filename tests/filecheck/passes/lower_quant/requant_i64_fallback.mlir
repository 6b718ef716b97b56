// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A u32 input: its values from 2^31 up do not fit an i32, and neither does d = q - 12345 in
// [-12345, 2^32 - 12346] (no clamp helps: 2^32 * 0.0001 / 0.3 is far inside the i32 output), so
// the body is the one-word form in i64: 91625969 * 2^-38 = 0.0001 / 0.3, rem = t & (2^38 - 1),
// toward zero (it reads rem != 0 only: no half constant).

func.func @requant_u32(%x: tensor<8x!quant.uniform<u32:f32, 0.0001:12345>>) -> tensor<8x!quant.uniform<i32:f32, 0.3:-9>> {
  %r = quant.requant %x {rounding = "toward_zero"} : tensor<8x!quant.uniform<u32:f32, 0.0001:12345>> to tensor<8x!quant.uniform<i32:f32, 0.3:-9>>
  func.return %r : tensor<8x!quant.uniform<i32:f32, 0.3:-9>>
}
// The result, -9 + at most 2^32 * 0.0001 / 0.3 in magnitude, cannot leave the i32 output: no clamp.

// CHECK:        ^bb0(%1: i32, %2: i32):
// CHECK-NEXT:     %3 = arith.constant 12345 : i64
// CHECK-NEXT:     %4 = arith.constant 91625969 : i64
// CHECK-NEXT:     %5 = arith.constant 274877906943 : i64
// CHECK-NEXT:     %6 = arith.constant 38 : i64
// CHECK-NEXT:     %7 = arith.constant -9 : i64
// CHECK-NEXT:     %8 = arith.extui %1 : i32 to i64
// CHECK-NEXT:     %9 = arith.subi %8, %3 : i64
// CHECK-NEXT:     %10 = arith.muli %9, %4 : i64
// CHECK-NEXT:     %11 = arith.andi %10, %5 : i64
// CHECK-NEXT:     %12 = arith.constant 0 : i64
// CHECK-NEXT:     %13 = arith.cmpi ne, %11, %12 : i64
// CHECK-NEXT:     %14 = arith.shrsi %10, %6 : i64
// CHECK-NEXT:     %15 = arith.constant 0 : i64
// CHECK-NEXT:     %16 = arith.cmpi slt, %14, %15 : i64
// CHECK-NEXT:     %17 = arith.andi %13, %16 : i1
// CHECK-NEXT:     %18 = arith.extui %17 : i1 to i64
// CHECK-NEXT:     %19 = arith.addi %14, %18 : i64
// CHECK-NEXT:     %20 = arith.addi %19, %7 : i64
// CHECK-NEXT:     %21 = arith.trunci %20 : i64 to i32
// CHECK-NEXT:     linalg.yield %21 : i32
