// RUN: bitfold-opt %s -p bitfold-riscv-hoist-constants | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-hoist-constants{registers=6}' | filecheck %s --check-prefix=CROWDED

// The clamp bounds of a requantization loop, which `bitfold-riscv-lower-arith` loads where they
// are used, move right before the innermost loop when its registers
// allow: 8 needed (the two constants, the induction variable and the bound, at most 2 body values
// at once, the outer loop's variable and bound), 27 - 1 allowed by default. Only out of the
// innermost loop, not the outer one. With 6 registers (less a margin of 1) the loop keeps them.

riscv_func.func @f(%lo : !riscv.reg<a0>, %hi : !riscv.reg<a1>, %out : !riscv.reg<a2>) {
  %rows = riscv_scf.for %r : !riscv.reg = %lo : !riscv.reg<a0> to %hi : !riscv.reg<a1> step 64 : si12 iter_args(%p = %out) -> (!riscv.reg<a2>) {
    %end = riscv.addi %r, 64 : (!riscv.reg) -> !riscv.reg
    %q = riscv_scf.for %i : !riscv.reg = %r : !riscv.reg to %end : !riscv.reg step 4 : si12 iter_args(%o = %p) -> (!riscv.reg<a2>) {
      %x = rvmem.lw %i, 0 : (!riscv.reg) -> !riscv.reg
      %low = rv32.li -128 : !riscv.reg
      %above = "rvbound.max"(%x, %low) : (!riscv.reg, !riscv.reg) -> !riscv.reg
      %high = rv32.li 127 : !riscv.reg
      %y = "rvbound.min"(%above, %high) : (!riscv.reg, !riscv.reg) -> !riscv.reg
      rvmem.sb %o, %y, 0 : (!riscv.reg<a2>, !riscv.reg) -> ()
      %next = riscv.addi %o, 1 : (!riscv.reg<a2>) -> !riscv.reg<a2>
      riscv_scf.yield %next : !riscv.reg<a2>
    }
    riscv_scf.yield %q : !riscv.reg<a2>
  }
  riscv_func.return
}

// CHECK:      %end = riscv.addi %r, 64
// CHECK-NEXT: %low = rv32.li -128
// CHECK-NEXT: %high = rv32.li 127
// CHECK-NEXT: %q = riscv_scf.for %i
// CHECK-NEXT:   %x = rvmem.lw %i, 0
// CHECK-NEXT:   %above = "rvbound.max"(%x, %low)
// CHECK-NEXT:   %y = "rvbound.min"(%above, %high)

// CROWDED:      %q = riscv_scf.for %i
// CROWDED-NEXT:   %x = rvmem.lw %i, 0
// CROWDED-NEXT:   %low = rv32.li -128
