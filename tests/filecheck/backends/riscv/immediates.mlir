// RUN: bitfold-opt %s -p 'bitfold-riscv-immediates{xlen=32}' | filecheck %s

// A `li` operand that fits a 12-bit signed immediate folds into the instruction (`add` ->
// `addi`); 4096 does not fit and stays in a register; or-ing 0 is the operand itself; the
// `li`s left without users go.

riscv_func.func @f(%x : !riscv.reg<a0>) -> !riscv.reg<a0> {
  %c12 = rv32.li 12 : !riscv.reg
  %big = rv32.li 4096 : !riscv.reg
  %zero = rv32.li 0 : !riscv.reg
  %a = riscv.add %x, %c12 : (!riscv.reg<a0>, !riscv.reg) -> !riscv.reg
  %b = riscv.and %a, %big : (!riscv.reg, !riscv.reg) -> !riscv.reg
  %c = riscv.or %b, %zero : (!riscv.reg, !riscv.reg) -> !riscv.reg
  %r = riscv.mv %c : (!riscv.reg) -> !riscv.reg<a0>
  riscv_func.return %r : !riscv.reg<a0>
}

// CHECK:      riscv_func.func @f(%x: !riscv.reg<a0>) -> !riscv.reg<a0> {
// CHECK-NEXT:   %big = rv32.li 4096 : !riscv.reg
// CHECK-NEXT:   %a = riscv.addi %x, 12 : (!riscv.reg<a0>) -> !riscv.reg
// CHECK-NEXT:   %b = riscv.and %a, %big : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT:   %r = riscv.mv %b : (!riscv.reg) -> !riscv.reg<a0>
// CHECK-NEXT:   riscv_func.return %r : !riscv.reg<a0>
// CHECK-NEXT: }
