// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-arith{xlen=32}' | filecheck %s

// A truncation whose value only an `sb` stores costs nothing (the store writes the low byte);
// one that anything else reads is sign-extended into the register convention (slli, srai).

func.func @f(%x : i32, %p : !riscv.reg) -> i8 {
  %stored = arith.trunci %x : i32 to i8
  %v = builtin.unrealized_conversion_cast %stored : i8 to !riscv.reg
  rvmem.sb %p, %v, 0 : (!riscv.reg, !riscv.reg) -> ()
  %kept = arith.trunci %x : i32 to i8
  func.return %kept : i8
}

// CHECK:      %[[X:.*]] = builtin.unrealized_conversion_cast %x : i32 to !riscv.reg
// CHECK-NEXT: %stored = builtin.unrealized_conversion_cast %[[X]] : !riscv.reg to i8
// CHECK-NEXT: %v = builtin.unrealized_conversion_cast %stored : i8 to !riscv.reg
// CHECK-NEXT: rvmem.sb %p, %v, 0 : (!riscv.reg, !riscv.reg) -> ()
// CHECK-NEXT: %[[X2:.*]] = builtin.unrealized_conversion_cast %x : i32 to !riscv.reg
// CHECK-NEXT: %[[HIGH:.*]] = rv32.slli %[[X2]], 24 : (!riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[LOW:.*]] = rv32.srai %[[HIGH]], 24 : (!riscv.reg) -> !riscv.reg
// CHECK-NEXT: %{{.*}} = builtin.unrealized_conversion_cast %[[LOW]] : !riscv.reg to i8
