// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-ptr{xlen=32}' | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-ptr{xlen=32}' | bitfold-opt | filecheck %s

// The output reads back (second run line): `rvmem` is a registered dialect.

// Loads and stores by element width (xDSL's `convert-ptr-to-riscv` uses lw/sw for every
// integer): an i8 load is `lb` (sign-extended into the register convention), or `lbu` when
// every user is an `arith.extui`, which then disappears; an i8 store is `sb`.

func.func @f(%x : !riscv.reg, %y : !riscv.reg) -> (i32, i8) {
  %p = builtin.unrealized_conversion_cast %x : !riscv.reg to !ptr_xdsl.ptr
  %q = builtin.unrealized_conversion_cast %y : !riscv.reg to !ptr_xdsl.ptr
  %a = ptr_xdsl.load %p : !ptr_xdsl.ptr -> i8
  %b = ptr_xdsl.load %q : !ptr_xdsl.ptr -> i8
  %wide = arith.extui %b : i8 to i32
  ptr_xdsl.store %a, %q : i8, !ptr_xdsl.ptr
  func.return %wide, %a : i32, i8
}

// CHECK:      %[[P:.*]] = builtin.unrealized_conversion_cast %p : !riscv.reg to !riscv.reg
// CHECK-NEXT: %a = rvmem.lb %[[P]], 0 : (!riscv.reg) -> !riscv.reg
// CHECK-NEXT: %[[A:.*]] = builtin.unrealized_conversion_cast %a : !riscv.reg to i8
// CHECK-NEXT: %[[Q:.*]] = builtin.unrealized_conversion_cast %q : !riscv.reg to !riscv.reg
// CHECK-NEXT: %b = rvmem.lbu %[[Q]], 0 : (!riscv.reg) -> !riscv.reg
// CHECK-NEXT: %wide = builtin.unrealized_conversion_cast %b : !riscv.reg to i32
// CHECK-NEXT: %[[STORE_Q:.*]] = builtin.unrealized_conversion_cast %q : !riscv.reg to !riscv.reg
// CHECK-NEXT: %[[STORED:.*]] = builtin.unrealized_conversion_cast %[[A]] : i8 to !riscv.reg
// CHECK-NEXT: rvmem.sb %[[STORE_Q]], %[[STORED]], 0 : (!riscv.reg, !riscv.reg) -> ()
// CHECK-NEXT: func.return %wide, %[[A]] : i32, i8
// CHECK-NOT:  arith.extui
