// RUN: bitfold-opt %s -t bitfold-riscv-asm | filecheck %s

// An i4 constant is packed two nibbles a byte, low nibble first, in .rodata; a signed read
// shifts the nibble to the top of the register and back (sign extension), an unsigned read
// shifts it down and masks it.

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

// CHECK:      srli [[BYTE:[a-z0-9]+]], [[K:[a-z0-9]+]], 1
// CHECK:      andi [[SLOT:[a-z0-9]+]], [[K]], 1
// CHECK-NEXT: slli [[SHIFT:[a-z0-9]+]], [[SLOT]], 2
// CHECK:      lb [[B:[a-z0-9]+]], 0(
// CHECK:      sll [[B]], [[B]], {{[a-z0-9]+}}
// CHECK-NEXT: srai [[B]], [[B]], 60
// CHECK:      srl [[U:[a-z0-9]+]], {{[a-z0-9]+}}, {{[a-z0-9]+}}
// CHECK-NEXT: andi [[U]], [[U]], 15
// CHECK:      .section .rodata
// CHECK-NEXT: .p2align 0
// CHECK-NEXT: __constant_0:
// CHECK-NEXT:     .byte 47, 8
