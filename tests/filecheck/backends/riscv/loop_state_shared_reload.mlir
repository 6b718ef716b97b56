// RUN: bitfold-opt %s -p 'bitfold-riscv-copy-loop-values,bitfold-riscv-allocate-registers{registers=5 xlen=32}' | filecheck %s

// An outer loop's carried pointer %b (a tile's bias, as in a pointwise convolution) spilled around
// the inner loop that reads it (loop_state_spilling.py): 5 registers, 7 values. Its two uses in
// the inner loop's body share one reload (no loop between them), not one reload each.

riscv_func.func @tile_bias(%dst: !riscv.reg<a0>, %bias: !riscv.reg<a1>) {
  %q = riscv.mv %dst : (!riscv.reg<a0>) -> !riscv.reg
  %b0 = riscv.mv %bias : (!riscv.reg<a1>) -> !riscv.reg
  %end = riscv.addi %q, 16 : (!riscv.reg) -> !riscv.reg
  %bend = riscv_scf.for %out : !riscv.reg = %q : !riscv.reg to %end : !riscv.reg step 4 : si12 iter_args(%b = %b0) -> (!riscv.reg) {
    %stop = riscv.addi %out, 64 : (!riscv.reg) -> !riscv.reg
    riscv_scf.for %x : !riscv.reg = %out : !riscv.reg to %stop : !riscv.reg step 8 : si12 {
      %u = riscv.lw %b, 0 : (!riscv.reg) -> !riscv.reg
      %w = riscv.lw %b, 4 : (!riscv.reg) -> !riscv.reg
      %s = riscv.add %u, %w : (!riscv.reg, !riscv.reg) -> !riscv.reg
      riscv.sw %x, %s, 0 : (!riscv.reg, !riscv.reg) -> ()
      riscv_scf.yield
    }
    %b2 = riscv.addi %b, 8 : (!riscv.reg) -> !riscv.reg
    riscv_scf.yield %b2 : !riscv.reg
  }
  riscv_func.return
}

// CHECK:      riscv_scf.for %x
// CHECK-NEXT:   %[[B:[0-9]+]] = rvmem.lw %{{.*}}, 4 : (!riscv.reg<sp>)
// CHECK-NEXT:   %u = riscv.lw %[[B]], 0
// CHECK-NEXT:   %w = riscv.lw %[[B]], 4
// CHECK-NEXT:   %s = riscv.add %u, %w
