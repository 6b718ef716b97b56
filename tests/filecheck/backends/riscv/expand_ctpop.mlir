// RUN: bitfold-opt %s -p bitfold-riscv-expand-ctpop | filecheck %s

// Without Zbb, an i32 population count is Hacker's Delight's SWAR sequence (5-2) in i32 arith:
// x - ((x >> 1) & 0x55555555), pairs summed under 0x33333333, nibbles under 0x0F0F0F0F, and the
// top byte of the product by 0x01010101 (the four bytes' sum).

func.func @popcount(%x : i32) -> i32 {
  %n = math.ctpop %x : i32
  func.return %n : i32
}

// CHECK:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[HALF:.*]] = arith.shrui %x, %[[ONE]] : i32
// CHECK-NEXT: %[[ONES:.*]] = arith.constant 1431655765 : i32
// CHECK-NEXT: %[[ODD:.*]] = arith.andi %[[HALF]], %[[ONES]] : i32
// CHECK-NEXT: %[[BITS2:.*]] = arith.subi %x, %[[ODD]] : i32
// CHECK-NEXT: %[[PAIRS:.*]] = arith.constant 858993459 : i32
// CHECK-NEXT: %[[LOW2:.*]] = arith.andi %[[BITS2]], %[[PAIRS]] : i32
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[SHIFTED2:.*]] = arith.shrui %[[BITS2]], %[[TWO]] : i32
// CHECK-NEXT: %[[HIGH2:.*]] = arith.andi %[[SHIFTED2]], %[[PAIRS]] : i32
// CHECK-NEXT: %[[BITS4:.*]] = arith.addi %[[LOW2]], %[[HIGH2]] : i32
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[SHIFTED4:.*]] = arith.shrui %[[BITS4]], %[[FOUR]] : i32
// CHECK-NEXT: %[[SUM4:.*]] = arith.addi %[[BITS4]], %[[SHIFTED4]] : i32
// CHECK-NEXT: %[[NIBBLES:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT: %[[BYTES:.*]] = arith.andi %[[SUM4]], %[[NIBBLES]] : i32
// CHECK-NEXT: %[[BYTE_SUM:.*]] = arith.constant 16843009 : i32
// CHECK-NEXT: %[[PRODUCT:.*]] = arith.muli %[[BYTES]], %[[BYTE_SUM]] : i32
// CHECK-NEXT: %[[TOP:.*]] = arith.constant 24 : i32
// CHECK-NEXT: %[[COUNT:.*]] = arith.shrui %[[PRODUCT]], %[[TOP]] : i32
// CHECK-NEXT: func.return %[[COUNT]] : i32

// An i64 (RV64's 64-bit binary words): the same sequence with each mask's byte repeated eight
// times and the top byte of the product at bit 56.

func.func @popcount64(%x : i64) -> i64 {
  %n = math.ctpop %x : i64
  func.return %n : i64
}

// CHECK-LABEL: func.func @popcount64
// CHECK:       arith.constant 6148914691236517205 : i64
// CHECK:       arith.constant 3689348814741910323 : i64
// CHECK:       arith.constant 1085102592571150095 : i64
// CHECK:       %[[BYTE_SUM64:.*]] = arith.constant 72340172838076673 : i64
// CHECK-NEXT:  %[[PRODUCT64:.*]] = arith.muli %{{.*}}, %[[BYTE_SUM64]] : i64
// CHECK-NEXT:  %[[TOP64:.*]] = arith.constant 56 : i64
// CHECK-NEXT:  %[[COUNT64:.*]] = arith.shrui %[[PRODUCT64]], %[[TOP64]] : i64
// CHECK-NEXT:  func.return %[[COUNT64]] : i64
