// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-arith{xlen=32}' | filecheck %s

// `arith.cmpi` in MLIR's predicate order (xDSL 0.74's `convert-arith-to-riscv` reads 4..9 as
// ult, ule, ...: `sgt` became `sltu`): a > b is b < a, signed `slt` or unsigned `sltu`, and
// a <= b is not (b < a), `slt` then `xori 1`.

func.func @compare(%a : i32, %b : i32) -> (i1, i1, i1) {
  %gt = arith.cmpi sgt, %a, %b : i32
  %ugt = arith.cmpi ugt, %a, %b : i32
  %le = arith.cmpi sle, %a, %b : i32
  func.return %gt, %ugt, %le : i1, i1, i1
}

// CHECK:      %[[A1:.*]] = builtin.unrealized_conversion_cast %a : i32 to !riscv.reg
// CHECK-NEXT: %[[B1:.*]] = builtin.unrealized_conversion_cast %b : i32 to !riscv.reg
// CHECK-NEXT: %gt = riscv.slt %[[B1]], %[[A1]] : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[GT:.*]] = builtin.unrealized_conversion_cast %gt : !riscv.reg to i1
// CHECK-NEXT: %[[A2:.*]] = builtin.unrealized_conversion_cast %a : i32 to !riscv.reg
// CHECK-NEXT: %[[B2:.*]] = builtin.unrealized_conversion_cast %b : i32 to !riscv.reg
// CHECK-NEXT: %ugt = riscv.sltu %[[B2]], %[[A2]] : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[UGT:.*]] = builtin.unrealized_conversion_cast %ugt : !riscv.reg to i1
// CHECK-NEXT: %[[A3:.*]] = builtin.unrealized_conversion_cast %a : i32 to !riscv.reg
// CHECK-NEXT: %[[B3:.*]] = builtin.unrealized_conversion_cast %b : i32 to !riscv.reg
// CHECK-NEXT: %le = riscv.slt %[[B3]], %[[A3]] : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[NOT:.*]] = riscv.xori %le, 1 : (!riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[LE:.*]] = builtin.unrealized_conversion_cast %[[NOT]] : !riscv.reg to i1
// CHECK-NEXT: func.return %[[GT]], %[[UGT]], %[[LE]] : i1, i1, i1
