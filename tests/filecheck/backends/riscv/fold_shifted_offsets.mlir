// RUN: bitfold-opt %s --split-input-file -p 'bitfold-riscv-noop-clamps,bitfold-riscv-fold-shifted-offsets' | filecheck %s

// A per-channel requantization rounded in the high word ((high + half) >> k), its zero point 7
// and two-sided clamp: the zero point moves before the shift into a new rounding table,
// half + 7 * 2^k = [1 + 14, 256 + 7 * 512, 8 + 112, 16 + 224]: no addition after the shift, the
// clamp (not a no-op: the shifted high word exceeds i8) reads the shift's result.
// The high word of a 32 x 31-bit product is within 2^30, so nothing wraps.

"memref.global"() <{sym_name = "half", type = memref<4xi32>, initial_value = dense<[1, 256, 8, 16]> : tensor<4xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "shift", type = memref<4xi32>, initial_value = dense<[1, 9, 4, 5]> : tensor<4xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "multiplier", type = memref<4xi32>, initial_value = dense<[1073741824, 1500000000, 2000000000, 1234567890]> : tensor<4xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @requantize(%acc: memref<4x8xi32>, %out: memref<4x8xi8>) {
  %m = memref.get_global @multiplier : memref<4xi32>
  %half = memref.get_global @half : memref<4xi32>
  %shift = memref.get_global @shift : memref<4xi32>
  linalg.generic {indexing_maps = [affine_map<(c, w) -> (c, w)>, affine_map<(c, w) -> (c)>, affine_map<(c, w) -> (c)>, affine_map<(c, w) -> (c)>, affine_map<(c, w) -> (c, w)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %m, %half, %shift : memref<4x8xi32>, memref<4xi32>, memref<4xi32>, memref<4xi32>) outs(%out : memref<4x8xi8>) {
  ^bb0(%a: i32, %mc: i32, %r: i32, %k: i32, %o: i8):
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %zp = arith.constant 7 : i32
    %l, %h = arith.mulsi_extended %a, %mc : i32
    %t = arith.addi %h, %r : i32
    %s = arith.shrsi %t, %k : i32
    %z = arith.addi %s, %zp : i32
    %x = arith.maxsi %z, %lo : i32
    %y = arith.minsi %x, %hi : i32
    %n = arith.trunci %y : i32 to i8
    linalg.yield %n : i8
  }
  func.return
}

// CHECK-NOT:  sym_name = "half",
// CHECK:      "memref.global"() <{sym_name = "half_offset0", type = memref<4xi32>, initial_value = dense<[15, 3840, 120, 240]> : tensor<4xi32>, sym_visibility = "private", constant}> : () -> ()
// CHECK:      %[[HALF:.*]] = memref.get_global @half_offset0 : memref<4xi32>
// CHECK-NEXT: linalg.generic
// CHECK-SAME:   ins(%{{.*}}, %{{.*}}, %[[HALF]], %{{.*}} :
// CHECK:        %l, %h = arith.mulsi_extended %a, %mc : i32
// CHECK-NEXT:   %t = arith.addi %h, %r : i32
// CHECK-NEXT:   %s = arith.shrsi %t, %k : i32
// CHECK-NEXT:   %x = arith.maxsi %s, %lo : i32
// CHECK-NEXT:   %y = arith.minsi %x, %hi : i32

// -----

// Per tensor: the rounding constant 8 and the zero point -3 after a shift by 4 become one
// constant 8 - 3 * 16 = -40 before it.

func.func @per_tensor(%acc: memref<8xi32>, %out: memref<8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(w) -> (w)>, affine_map<(w) -> (w)>], iterator_types = ["parallel"]} ins(%acc : memref<8xi32>) outs(%out : memref<8xi32>) {
  ^bb0(%a: i32, %o: i32):
    %m = arith.constant 1374389535 : i32
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %zp = arith.constant -3 : i32
    %l, %h = arith.mulsi_extended %a, %m : i32
    %t = arith.addi %h, %c8 : i32
    %s = arith.shrsi %t, %c4 : i32
    %z = arith.addi %s, %zp : i32
    linalg.yield %z : i32
  }
  func.return
}

// CHECK-LABEL: func.func @per_tensor
// CHECK-NOT:    arith.constant -3
// CHECK:        %[[C:.*]] = arith.constant -40 : i32
// CHECK-NEXT:   %t = arith.addi %h, %[[C]] : i32
// CHECK-NEXT:   %s = arith.shrsi %t, %c4 : i32
// CHECK-NEXT:   linalg.yield %s : i32

// -----

// Where h + r' could wrap (an accumulator of unknown range), the addition stays after the shift.

func.func @unbounded(%acc: memref<8xi32>, %out: memref<8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(w) -> (w)>, affine_map<(w) -> (w)>], iterator_types = ["parallel"]} ins(%acc : memref<8xi32>) outs(%out : memref<8xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %zp = arith.constant -3 : i32
    %t = arith.addi %a, %c8 : i32
    %s = arith.shrsi %t, %c4 : i32
    %z = arith.addi %s, %zp : i32
    linalg.yield %z : i32
  }
  func.return
}

// CHECK-LABEL: func.func @unbounded
// CHECK:        %t = arith.addi %a, %c8 : i32
// CHECK-NEXT:   %s = arith.shrsi %t, %c4 : i32
// CHECK-NEXT:   %z = arith.addi %s, %zp : i32
