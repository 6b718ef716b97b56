// RUN: bitfold-opt %s -p bitfold-riscv-loops-to-branches | filecheck %s
// RUN: bitfold-opt %s -p convert-riscv-scf-to-riscv-cf | filecheck %s

// Loops to labels and branches exactly as xDSL's convert-riscv-scf-to-riscv-cf writes them (the
// second RUN line: the oracle), lowered last to first: two nests one after the other, the first
// with a loop inside. Labels number the loops inner before outer, in program order: the inner
// loop 0, its outer loop 1, the second nest 2.

riscv_func.func @two_nests(%p: !riscv.reg<a0>) {
  %zero = rv32.li 0 : !riscv.reg<t0>
  %n = rv32.li 8 : !riscv.reg<t1>
  %m = rv32.li 4 : !riscv.reg<t2>
  riscv_scf.for %i : !riscv.reg<t3> = %zero : !riscv.reg<t0> to %n : !riscv.reg<t1> step 1 : si12 {
    riscv_scf.for %j : !riscv.reg<t4> = %zero : !riscv.reg<t0> to %m : !riscv.reg<t2> step 1 : si12 {
      riscv.sw %p, %j, 0 : (!riscv.reg<a0>, !riscv.reg<t4>) -> ()
    }
    riscv.sw %p, %i, 4 : (!riscv.reg<a0>, !riscv.reg<t3>) -> ()
  }
  %k = riscv.lw %p, 8 : (!riscv.reg<a0>) -> !riscv.reg<t5>
  riscv_scf.for %l : !riscv.reg<t3> = %zero : !riscv.reg<t0> to %k : !riscv.reg<t5> step 2 : si12 {
    riscv.sw %p, %l, 12 : (!riscv.reg<a0>, !riscv.reg<t3>) -> ()
  }
  riscv_func.return
}

// CHECK:      %{{.*}} = riscv.mv %zero : (!riscv.reg<t0>) -> !riscv.reg<t3>
// CHECK-NEXT: riscv_cf.bge %{{[0-9]+}} : !riscv.reg<t3>, %n : !riscv.reg<t1>, ^[[END1:bb[0-9]+]]({{.*}}), ^[[BODY1:bb[0-9]+]]({{.*}})
// CHECK-NEXT: ^[[BODY1]](%i: !riscv.reg<t3>):
// CHECK-NEXT: riscv.label "scf_body_1_for"
// CHECK-NEXT: %{{.*}} = riscv.mv %zero : (!riscv.reg<t0>) -> !riscv.reg<t4>
// CHECK-NEXT: riscv_cf.bge %{{[0-9]+}} : !riscv.reg<t4>, %m : !riscv.reg<t2>, ^[[END0:bb[0-9]+]]({{.*}}), ^[[BODY0:bb[0-9]+]]({{.*}})
// CHECK-NEXT: ^[[BODY0]](%j: !riscv.reg<t4>):
// CHECK-NEXT: riscv.label "scf_body_0_for"
// CHECK-NEXT: riscv.sw %p, %j, 0
// CHECK-NEXT: %{{.*}} = riscv.addi %j, 1 : (!riscv.reg<t4>) -> !riscv.reg<t4>
// CHECK-NEXT: riscv_cf.blt %{{[0-9]+}} : !riscv.reg<t4>, %m : !riscv.reg<t2>, ^[[BODY0]]({{.*}}), ^[[END0]]({{.*}})
// CHECK-NEXT: ^[[END0]](%{{[0-9]+}}: !riscv.reg<t4>):
// CHECK-NEXT: riscv.label "scf_body_end_0_for"
// CHECK-NEXT: riscv.sw %p, %i, 4
// CHECK-NEXT: %{{.*}} = riscv.addi %i, 1 : (!riscv.reg<t3>) -> !riscv.reg<t3>
// CHECK-NEXT: riscv_cf.blt %{{[0-9]+}} : !riscv.reg<t3>, %n : !riscv.reg<t1>, ^[[BODY1]]({{.*}}), ^[[END1]]({{.*}})
// CHECK-NEXT: ^[[END1]](%{{[0-9]+}}: !riscv.reg<t3>):
// CHECK-NEXT: riscv.label "scf_body_end_1_for"
// CHECK-NEXT: %k = riscv.lw %p, 8
// CHECK-NEXT: %{{.*}} = riscv.mv %zero : (!riscv.reg<t0>) -> !riscv.reg<t3>
// CHECK-NEXT: riscv_cf.bge %{{[0-9]+}} : !riscv.reg<t3>, %k : !riscv.reg<t5>, ^[[END2:bb[0-9]+]]({{.*}}), ^[[BODY2:bb[0-9]+]]({{.*}})
// CHECK-NEXT: ^[[BODY2]](%l: !riscv.reg<t3>):
// CHECK-NEXT: riscv.label "scf_body_2_for"
// CHECK-NEXT: riscv.sw %p, %l, 12
// CHECK-NEXT: %{{.*}} = riscv.addi %l, 2
// CHECK-NEXT: riscv_cf.blt %{{[0-9]+}} : !riscv.reg<t3>, %k : !riscv.reg<t5>, ^[[BODY2]]({{.*}}), ^[[END2]]({{.*}})
// CHECK-NEXT: ^[[END2]](%{{[0-9]+}}: !riscv.reg<t3>):
// CHECK-NEXT: riscv.label "scf_body_end_2_for"
// CHECK-NEXT: riscv_func.return
