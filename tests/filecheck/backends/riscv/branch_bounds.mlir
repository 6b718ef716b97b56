// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32im symbol=k}' | filecheck %s

// Without Zbb a requantization's clamp to i8 is a forward branch over a move a bound, in the
// register of the value clamped (its last use): where the value is in range, one executed
// instruction a bound (sign masks took 7 with the zero point folded in). Each bound is held in a
// register; the label is the numeric local label `1`, the same for every bound.

func.func @k(%acc: tensor<64xi32>) -> tensor<64xi8> {
  %e = tensor.empty() : tensor<64xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(w) -> (w)>, affine_map<(w) -> (w)>], iterator_types = ["parallel"]} ins(%acc : tensor<64xi32>) outs(%e : tensor<64xi8>) {
  ^bb0(%a: i32, %o: i8):
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %zp = arith.constant 7 : i32
    %m = arith.constant 1518500250 : i32
    %l, %h = arith.mulsi_extended %a, %m : i32
    %z = arith.addi %h, %zp : i32
    %x = arith.maxsi %z, %lo : i32
    %c = arith.minsi %x, %hi : i32
    %t = arith.trunci %c : i32 to i8
    linalg.yield %t : i8
  } -> tensor<64xi8>
  func.return %y : tensor<64xi8>
}

// CHECK:      k:
// CHECK:        mulh [[X:[a-z0-9]+]], [[X]], {{[a-z0-9]+}}
// CHECK-NEXT:   addi [[X]], [[X]], 7
// CHECK:        bge [[X]], [[LO:[a-z0-9]+]], 1f
// CHECK-NEXT:   mv [[X]], [[LO]]
// CHECK-NEXT: 1:
// CHECK:        bge [[HI:[a-z0-9]+]], [[X]], 1f
// CHECK-NEXT:   mv [[X]], [[HI]]
// CHECK-NEXT: 1:
// CHECK-NOT:    srai
// CHECK:        sb [[X]], 0(
// CHECK:        ret
