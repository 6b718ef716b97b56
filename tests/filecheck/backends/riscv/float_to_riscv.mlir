// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-float{xlen=32}' | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-lower-float{xlen=32}' | bitfold-opt | filecheck %s

// The output reads back (second run line): `rvfloat` is a registered dialect.

// maximumf propagates NaN (fmax.s alone would return the number): fmax.s where both operands
// are numbers (feq x,x & feq y,y), else the canonical NaN 0x7FC00000, by an integer select of
// the bits. addf rounds to nearest even whatever frm holds; fptosi truncates toward zero.

func.func @f(%x: f32, %y: f32) -> i32 {
  %m = arith.maximumf %x, %y : f32
  %s = arith.addf %m, %y : f32
  %i = arith.fptosi %s : f32 to i32
  func.return %i : i32
}

// CHECK:       %[[X:.*]] = builtin.unrealized_conversion_cast %x : f32 to !riscv.freg
// CHECK-NEXT:  %[[Y:.*]] = builtin.unrealized_conversion_cast %y : f32 to !riscv.freg
// CHECK-NEXT:  %[[MAX:.*]] = riscv.fmax.s %[[X]], %[[Y]] : (!riscv.freg, !riscv.freg) -> !riscv.freg
// CHECK-NEXT:  %[[XN:.*]] = riscv.feq.s %[[X]], %[[X]]
// CHECK-NEXT:  %[[YN:.*]] = riscv.feq.s %[[Y]], %[[Y]]
// CHECK-NEXT:  %[[BOTH:.*]] = riscv.and %[[XN]], %[[YN]]
// CHECK-NEXT:  %[[BITS:.*]] = riscv.fmv.x.w %[[MAX]]
// CHECK-NEXT:  %[[NAN:.*]] = rv32.li 2143289344 : !riscv.reg
// CHECK:       %[[PICKED:.*]] = riscv.xor %[[NAN]], %{{.*}}
// CHECK-NEXT:  %[[M:.*]] = riscv.fmv.w.x %[[PICKED]] : (!riscv.reg) -> !riscv.freg
// CHECK:       %[[S:.*]] = rvfloat.fadd.s %[[M]], %{{.*}} : (!riscv.freg, !riscv.freg) -> !riscv.freg
// CHECK:       %{{.*}} = rvfloat.fcvt.w.s %[[S]] {rounding = "rtz"} : (!riscv.freg) -> !riscv.reg
