// RUN: bitfold-opt %s -p bitfold-riscv-soft-float | filecheck %s

// Without F, an f32 is its bits in an integer register: addf is a call of libgcc's __addsf3
// (an rvfloat.libcall, one instruction to the register allocator); cmpf ult is !oge, with
// oge = __gesf2(a, b) >= 0 (which is false when either is NaN).

func.func @f(%x: f32, %y: f32) -> i1 {
  %s = arith.addf %x, %y : f32
  %c = arith.cmpf ult, %s, %y : f32
  func.return %c : i1
}

// CHECK:      %[[X:.*]] = builtin.unrealized_conversion_cast %x : f32 to i32
// CHECK-NEXT: %[[Y:.*]] = builtin.unrealized_conversion_cast %y : f32 to i32
// CHECK-NEXT: %[[XR:.*]] = builtin.unrealized_conversion_cast %[[X]] : i32 to !riscv.reg
// CHECK-NEXT: %[[YR:.*]] = builtin.unrealized_conversion_cast %[[Y]] : i32 to !riscv.reg
// CHECK-NEXT: %[[SUM:.*]] = rvfloat.libcall %[[XR]], %[[YR]] {callee = "__addsf3"} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK:      %[[GE:.*]] = rvfloat.libcall %{{.*}}, %{{.*}} {callee = "__gesf2"} : (!riscv.reg, !riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[GEI:.*]] = builtin.unrealized_conversion_cast %[[GE]] : !riscv.reg to i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[OGE:.*]] = arith.cmpi sge, %[[GEI]], %[[ZERO]] : i32
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[ULT:.*]] = arith.xori %[[OGE]], %[[TRUE]] : i1
// CHECK-NEXT: func.return %[[ULT]] : i1
