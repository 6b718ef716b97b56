// RUN: bitfold-opt %s -t bitfold-riscv-asm | filecheck %s

// An i4 constant is packed two nibbles a byte, low nibble first, in .rodata (a panel per
// reading nest, in the order it reads); each byte is loaded once. A signed read shifts the low
// nibble to the top of the register and back (sign extension) and the high nibble of the
// sign-extended byte down; an unsigned read masks the low nibble and shifts the high one down.

func.func @dot(%x: tensor<3xi8>) -> (tensor<1xi32>, tensor<1xi32>) {
  %w = arith.constant dense<[-1, 2, -8]> : tensor<3xi4>
  %e = tensor.empty() : tensor<1xi32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<1xi32>) {
  ^bb0(%o: i32):
    %c0 = arith.constant 0 : i32
    linalg.yield %c0 : i32
  } -> tensor<1xi32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<3xi8>, tensor<3xi4>) outs(%z : tensor<1xi32>) {
  ^bb0(%a: i8, %b: i4, %acc: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i4 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %acc, %p : i32
    linalg.yield %r : i32
  } -> tensor<1xi32>
  %u = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<3xi8>, tensor<3xi4>) outs(%z : tensor<1xi32>) {
  ^bb0(%a: i8, %b: i4, %acc: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extui %b : i4 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %acc, %p : i32
    linalg.yield %r : i32
  } -> tensor<1xi32>
  func.return %s, %u : tensor<1xi32>, tensor<1xi32>
}

// CHECK:      la [[P:[a-z0-9]+]], __constant_0_panel0
// CHECK:      lb [[B:[a-z0-9]+]], 0([[P]])
// CHECK-NEXT: slli [[L:[a-z0-9]+]], [[B]], 60
// CHECK-NEXT: srai [[L]], [[L]], 60
// CHECK-NOT:  lb {{[a-z0-9]+}}, 0([[P]])
// CHECK:      srai {{[a-z0-9]+}}, [[B]], 4
// CHECK:      lb [[C:[a-z0-9]+]], 1([[P]])
// CHECK-NEXT: slli [[C]], [[C]], 60
// CHECK-NEXT: srai [[C]], [[C]], 60
// CHECK:      la [[Q:[a-z0-9]+]], __constant_0_panel1
// CHECK:      lbu [[U:[a-z0-9]+]], 0([[Q]])
// CHECK:      andi {{[a-z0-9]+}}, [[U]], 15
// CHECK:      srli {{[a-z0-9]+}}, [[U]], 4
// CHECK:      lbu [[V:[a-z0-9]+]], 1([[Q]])
// CHECK-NEXT: andi [[V]], [[V]], 15
// CHECK:      .section .rodata
// CHECK:      __constant_0_panel{{[01]}}:
// CHECK-NEXT:     .byte 47, 8
// CHECK:      __constant_0_panel{{[01]}}:
// CHECK-NEXT:     .byte 47, 8
