// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-arith{xlen=32 zbb=true}' | filecheck %s

// With Zbb a min/max is one instruction: `max`/`min` for the signed order, `maxu`/`minu` for the
// unsigned one; on i1 (held as 0/1, 1 being -1 signed) the signed max is `minu`, the min `maxu`.

func.func @bounds(%a : i32, %b : i32, %p : i1, %q : i1) -> (i32, i32, i32, i32, i1, i1) {
  %max = arith.maxsi %a, %b : i32
  %min = arith.minsi %a, %b : i32
  %maxu = arith.maxui %a, %b : i32
  %minu = arith.minui %a, %b : i32
  %bmax = arith.maxsi %p, %q : i1
  %bmin = arith.minsi %p, %q : i1
  func.return %max, %min, %maxu, %minu, %bmax, %bmin : i32, i32, i32, i32, i1, i1
}

// CHECK:      %max = riscv.max %{{.*}}, %{{.*}} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK:      %min = riscv.min %{{.*}}, %{{.*}} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK:      %maxu = riscv.maxu %{{.*}}, %{{.*}} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK:      %minu = riscv.minu %{{.*}}, %{{.*}} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK:      %bmax = riscv.minu %{{.*}}, %{{.*}} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK:      %bmin = riscv.maxu %{{.*}}, %{{.*}} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NOT:  riscv.slt
