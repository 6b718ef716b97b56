// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv64im symbol=mm}' | filecheck %s
// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32im symbol=mm}' | filecheck %s --check-prefix=RV32

// u8 x s8 -> i32 with a zero point: lbu for the extui operand (the extension disappears), lb
// for the extsi one, the zero point folded into addiw, the accumulator in a register for the
// whole reduction, word arithmetic on RV64; one store per output element.

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
// CHECK:      scf_body_2_for:
// CHECK-NEXT:     add [[X:[a-z0-9]+]], {{.*}}
// CHECK-NEXT:     add [[X]], {{.*}}
// CHECK-NEXT:     lbu [[X]], 0([[X]])
// CHECK:          lb [[Y:[a-z0-9]+]], 0([[Y]])
// CHECK-NEXT:     addiw [[X]], [[X]], -128
// CHECK-NEXT:     mulw [[X]], [[X]], [[Y]]
// CHECK-NEXT:     addw [[ACC:[a-z0-9]+]], [[ACC]], [[X]]
// CHECK-NEXT:     addi {{.*}}, 1
// CHECK-NEXT:     blt {{.*}}, scf_body_2_for
// CHECK-NEXT: scf_body_end_2_for:
// CHECK:          sw [[ACC]], 0({{.*}})
// CHECK:          ret
// CHECK-NEXT: .size mm, .-mm
// CHECK-NOT:  .rodata

// RV32:       scf_body_2_for:
// RV32:           lbu
// RV32:           lb
// RV32-NEXT:      addi [[X:[a-z0-9]+]], [[X]], -128
// RV32-NEXT:      mul
// RV32-NEXT:      add
