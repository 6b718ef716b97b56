// RUN: bitfold-opt %s -p 'bitfold-riscv-copy-loop-values,bitfold-riscv-allocate-registers{registers=5 xlen=32}' | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-copy-loop-values,bitfold-riscv-allocate-registers{registers=5 xlen=32 spill=false}' | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-copy-loop-values,bitfold-riscv-allocate-registers{xlen=32}' | filecheck %s --check-prefix=ALL

// An outer loop's state spilled around its inner loop (backends/riscv/regalloc/loop_state_spilling.py):
// the inner loop holds 5 values (its variable and bound, the sum, two loads), the outer loop's
// variable %out and bound %end pass through it unused: 7 values, 5 registers. The bound is
// stored once before the outer loop, the variable before the inner loop; the inner loop's loads
// take their registers (t2, t1), and after it both are reloaded into them
// ({bitfold.restores}: -1 the bound, 0 the variable), where the loop's increment and compare
// read them; the same with spill=false (what lower_to_riscv's tile budgets try first: the outer
// loops' state is not what it refuses). With all registers nothing is stored.

riscv_func.func @row_sums(%src: !riscv.reg<a0>, %dst: !riscv.reg<a1>) {
  %p0 = riscv.mv %src : (!riscv.reg<a0>) -> !riscv.reg
  %q = riscv.mv %dst : (!riscv.reg<a1>) -> !riscv.reg
  %end = riscv.addi %q, 16 : (!riscv.reg) -> !riscv.reg
  %pend = riscv_scf.for %out : !riscv.reg = %q : !riscv.reg to %end : !riscv.reg step 4 : si12 iter_args(%p = %p0) -> (!riscv.reg) {
    %stop = riscv.addi %p, 64 : (!riscv.reg) -> !riscv.reg
    %zero = rv32.li 0 : !riscv.reg
    %sum = riscv_scf.for %x : !riscv.reg = %p : !riscv.reg to %stop : !riscv.reg step 8 : si12 iter_args(%acc = %zero) -> (!riscv.reg) {
      %v = riscv.lw %x, 0 : (!riscv.reg) -> !riscv.reg
      %w = riscv.lw %x, 4 : (!riscv.reg) -> !riscv.reg
      %t = riscv.add %v, %w : (!riscv.reg, !riscv.reg) -> !riscv.reg
      %acc2 = riscv.add %acc, %t : (!riscv.reg, !riscv.reg) -> !riscv.reg
      riscv_scf.yield %acc2 : !riscv.reg
    }
    riscv.sw %out, %sum, 0 : (!riscv.reg, !riscv.reg) -> ()
    riscv_scf.yield %stop : !riscv.reg
  }
  riscv_func.return
}

// CHECK:      %[[SP:[0-9a-z_]+]] = rv32.get_register : !riscv.reg<sp>
// CHECK:      %end = riscv.addi %q, 16 : (!riscv.reg<t1>) -> !riscv.reg<t2>
// CHECK-NEXT: rvmem.sw %[[SP]], %end, 0
// CHECK-NEXT: riscv_scf.for %out : !riscv.reg<t1> = %q : !riscv.reg<t1> to %end : !riscv.reg<t2>
// CHECK:        rvmem.sw %[[SP]], %out, 4
// CHECK-NEXT:   riscv_scf.for %x
// CHECK-NEXT:     riscv.lw %x, 0 : (!riscv.reg<t0>) -> !riscv.reg<t2>
// CHECK-NEXT:     riscv.lw %x, 4 : (!riscv.reg<t0>) -> !riscv.reg<t1>
// CHECK:          riscv_scf.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   rvmem.lw %[[SP]], 0 {bitfold.restores = -1 : i32} : (!riscv.reg<sp>) -> !riscv.reg<t2>
// CHECK-NEXT:   %[[OUT:[0-9]+]] = rvmem.lw %[[SP]], 4 {bitfold.restores = 0 : i32} : (!riscv.reg<sp>) -> !riscv.reg<t1>
// CHECK-NEXT:   riscv.sw %[[OUT]], %sum, 0 : (!riscv.reg<t1>, !riscv.reg<t4>) -> ()

// ALL-NOT:    rvmem.sw
// ALL-NOT:    bitfold.restores
