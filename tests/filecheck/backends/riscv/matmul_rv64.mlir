// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv64im symbol=mm}' | filecheck %s
// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32im symbol=mm}' | filecheck %s --check-prefix=RV32

// u8 x s8 -> i32 with a zero point, 5x7 @ 7x3: the whole 5x3 output is one register tile (15
// accumulators loaded once, stored once) and the 7-long reduction is unrolled: loads at
// immediate offsets from the operands' base pointers, no address arithmetic, no loop. lbu for
// the extui operand (the extension disappears), lb for the extsi one, the zero point folded
// into addiw, word arithmetic on RV64; an element of the second operand loaded once per
// reduction step and used by the three rows of the tile.

func.func @mm(%a: tensor<5x7xi8>, %w: tensor<7x3xi8>) -> tensor<5x3xi32> {
  %e = tensor.empty() : tensor<5x3xi32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<5x3xi32>) {
  ^bb0(%o: i32):
    %c0 = arith.constant 0 : i32
    linalg.yield %c0 : i32
  } -> tensor<5x3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<5x7xi8>, tensor<7x3xi8>) outs(%z : tensor<5x3xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %zp = arith.constant 128 : i32
    %xs = arith.subi %xe, %zp : i32
    %p = arith.muli %xs, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<5x3xi32>
  func.return %r : tensor<5x3xi32>
}

// CHECK:      .text
// CHECK-NEXT: .globl mm
// CHECK-NEXT: .p2align 2
// CHECK-NEXT: .type mm, @function
// CHECK-NEXT: mm:
// CHECK:      lw [[ACC:[a-z0-9]+]], 0([[OUT:[a-z0-9]+]])
// CHECK:      lw {{[a-z0-9]+}}, 56([[OUT]])
// CHECK-NEXT: lbu [[X:[a-z0-9]+]], 0([[A:[a-z0-9]+]])
// CHECK-NEXT: lb [[Y:[a-z0-9]+]], 0([[W:[a-z0-9]+]])
// CHECK-NEXT: addiw [[X]], [[X]], -128
// CHECK-NEXT: mulw [[P:[a-z0-9]+]], [[X]], [[Y]]
// CHECK-NEXT: addw [[ACC]], [[ACC]], [[P]]
// CHECK:      lbu {{[a-z0-9]+}}, 7([[A]])
// CHECK-NOT:  blt
// CHECK-NOT:  {{^ +lw }}
// CHECK:      lbu {{[a-z0-9]+}}, 34([[A]])
// CHECK-NOT:  blt
// CHECK:      sw [[ACC]], 0([[OUT]])
// CHECK:      ret
// CHECK-NEXT: .size mm, .-mm
// CHECK-NOT:  .rodata

// RV32:       lbu
// RV32-NOT:   addiw
// RV32:       addi {{[a-z0-9]+}}, {{[a-z0-9]+}}, -128
// RV32:       ret
