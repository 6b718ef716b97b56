// RUN: bitfold-opt %s -p bitfold-riscv-sink-constants | filecheck %s

// Each loop nest using a function-level `li` / `la` gets a copy of its own right before it, so
// a constant lives through one nest only; a use outside loops keeps the original, and a
// constant only nests use (`%table`) is erased where it was.

riscv_func.func @f(%lo : !riscv.reg<a0>, %hi : !riscv.reg<a1>) {
  %mask = rv32.li 255 : !riscv.reg
  %table = rvmem.la {immediate = #riscv.label<"table">} : () -> !riscv.reg
  %first = riscv_scf.for %i : !riscv.reg = %lo : !riscv.reg<a0> to %hi : !riscv.reg<a1> step 1 : si12 iter_args(%s = %lo) -> (!riscv.reg<a0>) {
    %m = riscv.and %s, %mask : (!riscv.reg<a0>, !riscv.reg) -> !riscv.reg<a0>
    riscv_scf.yield %m : !riscv.reg<a0>
  }
  %second = riscv_scf.for %j : !riscv.reg = %lo : !riscv.reg<a0> to %hi : !riscv.reg<a1> step 1 : si12 iter_args(%t = %lo) -> (!riscv.reg<a0>) {
    %n = riscv.and %t, %mask : (!riscv.reg<a0>, !riscv.reg) -> !riscv.reg<a0>
    %u = riscv.add %n, %table : (!riscv.reg<a0>, !riscv.reg) -> !riscv.reg<a0>
    riscv_scf.yield %u : !riscv.reg<a0>
  }
  %outside = riscv.add %second, %mask : (!riscv.reg<a0>, !riscv.reg) -> !riscv.reg
  riscv_func.return
}

// CHECK:      %mask = rv32.li 255 : !riscv.reg
// CHECK-NEXT: %[[FIRST_MASK:.*]] = rv32.li 255 : !riscv.reg
// CHECK-NEXT: %first = riscv_scf.for %i
// CHECK-NEXT:   %m = riscv.and %s, %[[FIRST_MASK]]
// CHECK-NEXT:   riscv_scf.yield %m
// CHECK-NEXT: }
// CHECK-NEXT: %[[SECOND_MASK:.*]] = rv32.li 255 : !riscv.reg
// CHECK-NEXT: %table = rvmem.la {immediate = #riscv.label<"table">} : () -> !riscv.reg
// CHECK-NEXT: %second = riscv_scf.for %j
// CHECK-NEXT:   %n = riscv.and %t, %[[SECOND_MASK]]
// CHECK-NEXT:   %u = riscv.add %n, %table
// CHECK-NEXT:   riscv_scf.yield %u
// CHECK-NEXT: }
// CHECK-NEXT: %outside = riscv.add %second, %mask
// CHECK-NEXT: riscv_func.return
