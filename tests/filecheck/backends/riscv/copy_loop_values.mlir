// RUN: bitfold-opt %s -p bitfold-riscv-copy-loop-values | filecheck %s

// xDSL's allocator gives a loop's initial, carried, yielded and result values one register.
// Copies make that sound: an initial value two loops start from (a base address after CSE),
// an enclosing loop's induction variable (incremented by that loop behind SSA's back), a
// yielded bound computed while the carried pointer it comes from is still live.

riscv_func.func @f(%base : !riscv.reg<a0>, %arg : !riscv.reg<a1>) {
  %n = riscv.mv %arg : (!riscv.reg<a1>) -> !riscv.reg
  %end = riscv.addi %base, 64 : (!riscv.reg<a0>) -> !riscv.reg
  %p = riscv.mv %base : (!riscv.reg<a0>) -> !riscv.reg
  %r0 = riscv_scf.for %i : !riscv.reg = %n : !riscv.reg to %end : !riscv.reg step 4 : si12 iter_args(%q = %p) -> (!riscv.reg) {
    %q1 = riscv.addi %q, 4 : (!riscv.reg) -> !riscv.reg
    riscv_scf.yield %q1 : !riscv.reg
  }
  %r1 = riscv_scf.for %j : !riscv.reg = %n : !riscv.reg to %end : !riscv.reg step 4 : si12 iter_args(%q = %p) -> (!riscv.reg) {
    %r2 = riscv_scf.for %k : !riscv.reg = %n : !riscv.reg to %end : !riscv.reg step 1 : si12 iter_args(%s = %j) -> (!riscv.reg) {
      %s1 = riscv.addi %s, 1 : (!riscv.reg) -> !riscv.reg
      riscv_scf.yield %s1 : !riscv.reg
    }
    %stop = riscv.addi %q, 16 : (!riscv.reg) -> !riscv.reg
    %w = riscv.lw %q, 0 : (!riscv.reg) -> !riscv.reg
    riscv_scf.yield %stop : !riscv.reg
  }
  riscv_func.return
}

// CHECK:      %p = riscv.mv %base
// CHECK-NEXT: %[[FIRST:.*]] = riscv.mv %p
// CHECK-NEXT: riscv_scf.for {{.*}} iter_args(%{{.*}} = %[[FIRST]])
// CHECK:      %[[SECOND:.*]] = riscv.mv %p
// CHECK-NEXT: riscv_scf.for %j {{.*}} iter_args(%{{.*}} = %[[SECOND]])
// CHECK-NEXT:   %[[IV:.*]] = riscv.mv %j
// CHECK-NEXT:   riscv_scf.for {{.*}} iter_args(%{{.*}} = %[[IV]])
// CHECK:        %stop = riscv.addi
// CHECK:        %[[YIELDED:.*]] = riscv.mv %stop
// CHECK-NEXT:   riscv_scf.yield %[[YIELDED]]
