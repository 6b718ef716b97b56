// RUN: bitfold-opt %s -p lower-quant | bitfold-opt -t 'bitfold-riscv-asm{arch=rv32im symbol=k}' | filecheck %s

// A per-channel requantization whose shifts straddle 32 (ratios 1001 * 2^-20 and 4000001 * 2^-44,
// i16 input, output scale 1, zero point 3): the n = 20 channel is lifted to (1001 * 2^13, 33), so
// each channel is mulh, add, sra (rounding half up in the high word, no tie possible), the zero
// point folded into the rounding table (`shifted_offsets.py`: 2^(k-1) + 3 * 2^k = 7 and 14336 for
// k = 1 and 12), on rv32im; no low word, no select, no branch.

func.func @k(%acc: tensor<2x!quant.uniform<i16:f32:0, {0.00095462799072265625, 2.2737373228665092E-7}>>) -> tensor<2x!quant.uniform<i8:f32, 1.0:3>> {
  %r = quant.requant %acc : tensor<2x!quant.uniform<i16:f32:0, {0.00095462799072265625, 2.2737373228665092E-7}>> to tensor<2x!quant.uniform<i8:f32, 1.0:3>>
  func.return %r : tensor<2x!quant.uniform<i8:f32, 1.0:3>>
}

// CHECK:      k:
// CHECK:        lh [[X:[a-z0-9]+]], 0(
// CHECK:        mulh [[X]], [[X]], [[M:[a-z0-9]+]]
// CHECK-NEXT:   add [[X]], [[X]], [[H:[a-z0-9]+]]
// CHECK-NEXT:   sra [[X]], [[X]], [[K:[a-z0-9]+]]
// CHECK-NOT:    addi
// CHECK:        lh [[Y:[a-z0-9]+]], 2(
// CHECK:        mulh [[Y]], [[Y]], [[M2:[a-z0-9]+]]
// CHECK-NEXT:   add [[Y]], [[Y]], [[H2:[a-z0-9]+]]
// CHECK-NEXT:   sra [[Y]], [[Y]], [[K2:[a-z0-9]+]]
// CHECK-NOT:    addi
// CHECK-NOT:    mul
// CHECK-NOT:    {{b[a-z]+ }}
// CHECK:        ret
// CHECK:      __constant_0_panel0:
// CHECK-NEXT:   .word 8200192, 4000001, 1, 12, 7, 14336
