// RUN: bitfold-opt %s -p 'bitfold-riscv-allocate-registers{registers=6 xlen=32}' | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-allocate-registers{registers=6 xlen=32},riscv-lower-parallel-mov,bitfold-riscv-loops-to-branches,bitfold-riscv-prologue-epilogue{xlen=32}' -t riscv-asm | filecheck %s --check-prefix=ASM
// RUN: bitfold-opt %s -p 'bitfold-riscv-allocate-registers{registers=6 xlen=64}' | filecheck %s --check-prefix=RV64
// RUN: bitfold-opt %s -p 'bitfold-riscv-allocate-registers{xlen=32}' | filecheck %s --check-prefix=ALL

// Six registers for a loop that holds seven values (its counter and bound, three pointers live
// across it, two temporaries): one pointer defined before the loop is stored to a stack slot
// right after its definition and reloaded inside the loop right before its use. The frame
// (16 bytes: one 4-byte slot, aligned) is opened and closed around the function. With all 27
// registers nothing is spilled.

riscv_func.func @scale(%src: !riscv.reg<a0>, %dst: !riscv.reg<a1>, %factor: !riscv.reg<a2>) {
  %p = riscv.mv %src : (!riscv.reg<a0>) -> !riscv.reg
  %q = riscv.mv %dst : (!riscv.reg<a1>) -> !riscv.reg
  %f = riscv.mv %factor : (!riscv.reg<a2>) -> !riscv.reg
  %zero = rv32.li 0 : !riscv.reg
  %n = rv32.li 16 : !riscv.reg
  %k = riscv.lw %f, 0 : (!riscv.reg) -> !riscv.reg
  riscv_scf.for %i : !riscv.reg = %zero : !riscv.reg to %n : !riscv.reg step 4 : si12 {
    %a = riscv.add %p, %i : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %x = riscv.lw %a, 0 : (!riscv.reg) -> !riscv.reg
    %y = riscv.mul %x, %k : (!riscv.reg, !riscv.reg) -> !riscv.reg
    %b = riscv.add %q, %i : (!riscv.reg, !riscv.reg) -> !riscv.reg
    riscv.sw %b, %y, 0 : (!riscv.reg, !riscv.reg) -> ()
  }
  riscv_func.return
}

// CHECK:      %[[SP:[0-9a-z_]+]] = rv32.get_register : !riscv.reg<sp>
// CHECK-NEXT: %p, %q, %f = riscv.parallel_mov %src, %dst, %factor
// CHECK-NEXT: rvmem.sw %[[SP]], %p, [[SLOT:[0-9]+]] : (!riscv.reg<sp>, !riscv.reg<{{[a-z0-9]+}}>) -> ()
// CHECK-NOT:  rvmem
// CHECK:      riscv_scf.for %i
// CHECK-NEXT:   %[[P:[0-9a-z_]+]] = rvmem.lw %[[SP]], [[SLOT]] : (!riscv.reg<sp>) -> !riscv.reg<[[R:[a-z0-9]+]]>
// CHECK-NEXT:   %a = riscv.add %[[P]], %i : (!riscv.reg<[[R]]>, !riscv.reg<{{[a-z0-9]+}}>)
// CHECK-NOT:  rvmem
// CHECK:      riscv_func.return

// ASM:      scale:
// ASM-NEXT:     addi sp, sp, -16
// ASM:          sw [[P:[a-z0-9]+]], [[SLOT:[0-9]+]](sp)
// ASM:      scf_body_{{[0-9]+}}_for:
// ASM-NEXT:     lw [[R:[a-z0-9]+]], [[SLOT]](sp)
// ASM-NEXT:     add [[R]], [[R]], {{[a-z0-9]+}}
// ASM:      scf_body_end_{{[0-9]+}}_for:
// ASM-NEXT:     addi sp, sp, 16
// ASM-NEXT:     ret

// RV64:      rvmem.sd %{{[0-9a-z_]+}}, %p, [[SLOT:[0-9]+]]
// RV64:      riscv_scf.for %i
// RV64-NEXT:   rvmem.ld %{{[0-9a-z_]+}}, [[SLOT]]

// ALL-NOT:  rvmem
// ALL-NOT:  sp>
