// RUN: bitfold-opt %s -p bitfold-riscv-multiply-to-shift | filecheck %s

// An index multiplication by a constant 2**k (either operand) is a left shift by k; other
// constants and non-index multiplications stay.

func.func @address(%i : index, %j : index, %x : i32) -> (index, index, index, i32) {
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8_i32 = arith.constant 8 : i32
  %a = arith.muli %i, %c8 : index
  %b = arith.muli %c4, %j : index
  %c = arith.muli %i, %c6 : index
  %d = arith.muli %x, %c8_i32 : i32
  func.return %a, %b, %c, %d : index, index, index, i32
}

// CHECK:      %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[A:.*]] = arith.shli %i, %[[THREE]] : index
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[B:.*]] = arith.shli %j, %[[TWO]] : index
// CHECK-NEXT: %c = arith.muli %i, %c6 : index
// CHECK-NEXT: %d = arith.muli %x, %c8_i32 : i32
// CHECK-NEXT: func.return %[[A]], %[[B]], %c, %d : index, index, index, i32
