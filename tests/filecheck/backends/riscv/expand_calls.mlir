// RUN: bitfold-opt %s -p 'bitfold-riscv-expand-calls{xlen=32}' | filecheck %s

// After register allocation a libcall is a call: the registers live across it (t1, read after
// it) and those of its arguments (t0, t2) saved above the spill slots (t1 first: it is live across
// some call), the arguments loaded
// into a0/a1 from their slots (t2 -> a0 and t0 -> a1 cross, so no move may come first), the
// result moved from a0, and only the live register restored. t3, dead after the call, is not saved.

riscv_func.func @f(%p : !riscv.reg<a0>) {
  %x = riscv.lw %p, 0 : (!riscv.reg<a0>) -> !riscv.reg<t2>
  %y = riscv.lw %p, 4 : (!riscv.reg<a0>) -> !riscv.reg<t0>
  %keep = riscv.lw %p, 8 : (!riscv.reg<a0>) -> !riscv.reg<t1>
  %dead = riscv.lw %p, 12 : (!riscv.reg<a0>) -> !riscv.reg<t3>
  %s = rvfloat.libcall %x, %y {callee = "__addsf3"} : (!riscv.reg<t2>, !riscv.reg<t0>) -> !riscv.reg<t3>
  %sum = riscv.add %s, %keep : (!riscv.reg<t3>, !riscv.reg<t1>) -> !riscv.reg<t3>
  riscv_func.return
}

// CHECK:       %[[SP:.*]] = rv32.get_register : !riscv.reg<sp>
// CHECK-NEXT:  %[[T0:.*]] = rv32.get_register : !riscv.reg<t0>
// CHECK-NEXT:  rvmem.sw %[[SP]], %[[T0]], 4
// CHECK-NEXT:  %[[T1:.*]] = rv32.get_register : !riscv.reg<t1>
// CHECK-NEXT:  rvmem.sw %[[SP]], %[[T1]], 0
// CHECK-NEXT:  %[[T2:.*]] = rv32.get_register : !riscv.reg<t2>
// CHECK-NEXT:  rvmem.sw %[[SP]], %[[T2]], 8
// CHECK-NEXT:  %{{.*}} = rvmem.lw %[[SP]], 8 : (!riscv.reg<sp>) -> !riscv.reg<a0>
// CHECK-NEXT:  %{{.*}} = rvmem.lw %[[SP]], 4 : (!riscv.reg<sp>) -> !riscv.reg<a1>
// CHECK-NEXT:  rvfloat.call {immediate = #riscv.label<"__addsf3">} : () -> ()
// CHECK-NEXT:  %[[A0:.*]] = rv32.get_register : !riscv.reg<a0>
// CHECK-NEXT:  %[[S:.*]] = riscv.mv %[[A0]] : (!riscv.reg<a0>) -> !riscv.reg<t3>
// CHECK-NEXT:  %{{.*}} = rvmem.lw %[[SP]], 0 : (!riscv.reg<sp>) -> !riscv.reg<t1>
// CHECK-NEXT:  %{{.*}} = riscv.add %[[S]], %keep : (!riscv.reg<t3>, !riscv.reg<t1>) -> !riscv.reg<t3>
