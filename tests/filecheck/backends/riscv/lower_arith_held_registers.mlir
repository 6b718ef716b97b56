// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-arith{xlen=32}' | filecheck %s

// XLEN-wide binary ops become xDSL's instruction for them (`LowerBinaryIntegerOp`), and an operand
// an earlier lowering already holds in a register is that register: the `mul` and the `sra` read
// `add`'s and `mul`'s results, not casts of the casts back to i32 (`register_operands.py`). Only
// the function's arguments are cast to registers, and each result is cast back for its users.

func.func @chain(%a : i32, %b : i32) -> i32 {
  %sum = arith.addi %a, %b : i32
  %product = arith.muli %sum, %sum : i32
  %shifted = arith.shrsi %product, %b : i32
  func.return %shifted : i32
}

// CHECK:      %[[A:.*]] = builtin.unrealized_conversion_cast %a : i32 to !riscv.reg
// CHECK-NEXT: %[[B:.*]] = builtin.unrealized_conversion_cast %b : i32 to !riscv.reg
// CHECK-NEXT: %[[SUM:.*]] = riscv.add %[[A]], %[[B]] : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[PRODUCT:.*]] = riscv.mul %[[SUM]], %[[SUM]] : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[B2:.*]] = builtin.unrealized_conversion_cast %b : i32 to !riscv.reg
// CHECK-NEXT: %[[SHIFTED:.*]] = riscv.sra %[[PRODUCT]], %[[B2]] : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[RESULT:.*]] = builtin.unrealized_conversion_cast %[[SHIFTED]] : !riscv.reg to i32
// CHECK-NEXT: func.return %[[RESULT]] : i32
