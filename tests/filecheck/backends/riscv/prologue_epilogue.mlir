// RUN: bitfold-opt %s -p 'bitfold-riscv-prologue-epilogue{xlen=64}' | filecheck %s

// The frame of an allocated leaf function on RV64: the s registers it writes (s0, s1) saved
// with `sd` (XLEN bits each; xDSL 0.74's pass saves with `sw`) in register order, the frame
// 2 x 8 = 16 bytes (a multiple of 16), restored with `ld` before the return. `li zero, 0`
// becomes the zero register itself and `mv s1, s1` disappears.

riscv_func.func @f(%x : !riscv.reg<a0>) -> !riscv.reg<a0> {
  %a = riscv.addi %x, 1 : (!riscv.reg<a0>) -> !riscv.reg<s0>
  %b = riscv.addi %a, 2 : (!riscv.reg<s0>) -> !riscv.reg<s1>
  %z = rv64.li 0 : !riscv.reg<zero>
  %same = riscv.mv %b : (!riscv.reg<s1>) -> !riscv.reg<s1>
  %r = riscv.add %same, %z : (!riscv.reg<s1>, !riscv.reg<zero>) -> !riscv.reg<a0>
  riscv_func.return %r : !riscv.reg<a0>
}

// CHECK:      %[[SP:.*]] = rv32.get_register : !riscv.reg<sp>
// CHECK-NEXT: %{{.*}} = riscv.addi %[[SP]], -16 : (!riscv.reg<sp>) -> !riscv.reg<sp>
// CHECK-NEXT: %[[S0:.*]] = rv32.get_register : !riscv.reg<s0>
// CHECK-NEXT: rvmem.sd %[[SP]], %[[S0]], 0 : (!riscv.reg<sp>, !riscv.reg<s0>) -> ()
// CHECK-NEXT: %[[S1:.*]] = rv32.get_register : !riscv.reg<s1>
// CHECK-NEXT: rvmem.sd %[[SP]], %[[S1]], 8 : (!riscv.reg<sp>, !riscv.reg<s1>) -> ()
// CHECK-NEXT: %a = riscv.addi %x, 1 : (!riscv.reg<a0>) -> !riscv.reg<s0>
// CHECK-NEXT: %b = riscv.addi %a, 2 : (!riscv.reg<s0>) -> !riscv.reg<s1>
// CHECK-NEXT: %z = rv32.get_register : !riscv.reg<zero>
// CHECK-NEXT: %r = riscv.add %b, %z : (!riscv.reg<s1>, !riscv.reg<zero>) -> !riscv.reg<a0>
// CHECK-NEXT: %{{.*}} = rvmem.ld %[[SP]], 0 : (!riscv.reg<sp>) -> !riscv.reg<s0>
// CHECK-NEXT: %{{.*}} = rvmem.ld %[[SP]], 8 : (!riscv.reg<sp>) -> !riscv.reg<s1>
// CHECK-NEXT: %{{.*}} = riscv.addi %[[SP]], 16 : (!riscv.reg<sp>) -> !riscv.reg<sp>
// CHECK-NEXT: riscv_func.return %r : !riscv.reg<a0>
