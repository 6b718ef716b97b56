// RUN: bitfold-opt %s --split-input-file -p bitfold-riscv-sign-mask-clamps | filecheck %s

// A requantization's zero point and two-sided clamp (max by -128, min by 127) become sign-mask
// arithmetic: the per-channel shift table (1..9) bounds the shifted value to [-2^30, 2^30), so
// neither difference to a bound can wrap. The zero point 7 folds into the first difference
// (7 - (-128) = 135), the first bound into the second (-128 - 127 = -255).

"memref.global"() <{sym_name = "shift", type = memref<4xi32>, initial_value = dense<[1, 9, 4, 5]> : tensor<4xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @requantize(%acc: memref<4x8xi32>, %m: i32, %out: memref<4x8xi8>) {
  %shift = memref.get_global @shift : memref<4xi32>
  linalg.generic {indexing_maps = [affine_map<(c, w) -> (c, w)>, affine_map<(c, w) -> (c)>, affine_map<(c, w) -> (c, w)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %shift : memref<4x8xi32>, memref<4xi32>) outs(%out : memref<4x8xi8>) {
  ^bb0(%a: i32, %k: i32, %o: i8):
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %zp = arith.constant 7 : i32
    %l, %h = arith.mulsi_extended %a, %m : i32
    %s = arith.shrsi %h, %k : i32
    %z = arith.addi %s, %zp : i32
    %x = arith.maxsi %z, %lo : i32
    %y = arith.minsi %x, %hi : i32
    %t = arith.trunci %y : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// CHECK:      %s = arith.shrsi %h, %k : i32
// CHECK-NEXT: %[[C135:.*]] = arith.constant 135 : i32
// CHECK-NEXT: %[[D:.*]] = arith.addi %s, %[[C135]] : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[SIGN:.*]] = arith.shrsi %[[D]], %[[C31]] : i32
// CHECK-NEXT: %[[NEG:.*]] = arith.andi %[[D]], %[[SIGN]] : i32
// CHECK-NEXT: %[[MAX:.*]] = arith.subi %[[D]], %[[NEG]] : i32
// CHECK-NEXT: %[[C255:.*]] = arith.constant -255 : i32
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[MAX]], %[[C255]] : i32
// CHECK-NEXT: %[[C31B:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[SIGNB:.*]] = arith.shrsi %[[E]], %[[C31B]] : i32
// CHECK-NEXT: %[[MIN:.*]] = arith.andi %[[E]], %[[SIGNB]] : i32
// CHECK-NEXT: %[[C127:.*]] = arith.constant 127 : i32
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[MIN]], %[[C127]] : i32
// CHECK-NEXT: %{{.*}} = arith.trunci %[[Y]] : i32 to i8

// -----

// Where the difference could wrap (an accumulator of unknown range against a bound), the clamp
// stays; a bound of 0 needs no final addition (min(x, 0) = x & (x >> 31)).

func.func @unbounded(%acc: memref<8xi32>, %out: memref<8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(w) -> (w)>, affine_map<(w) -> (w)>], iterator_types = ["parallel"]} ins(%acc : memref<8xi32>) outs(%out : memref<8xi32>) {
  ^bb0(%a: i32, %o: i32):
    %lo = arith.constant -100 : i32
    %zero = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %x = arith.maxsi %a, %lo : i32
    %s = arith.shrsi %a, %c4 : i32
    %y = arith.minsi %s, %zero : i32
    %z = arith.addi %x, %y : i32
    linalg.yield %z : i32
  }
  func.return
}

// CHECK-LABEL: func.func @unbounded
// CHECK:         %x = arith.maxsi %a, %lo : i32
// CHECK-NEXT:    %s = arith.shrsi %a, %c4 : i32
// CHECK-NEXT:    %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:    %[[SIGN:.*]] = arith.shrsi %s, %[[C31]] : i32
// CHECK-NEXT:    %[[Y:.*]] = arith.andi %s, %[[SIGN]] : i32
// CHECK-NEXT:    %z = arith.addi %x, %[[Y]] : i32

// -----

// A squeeze-excitation gate's product (x + 128)(g + 128) of two i8 values is in [0, 65025], so
// its requantization (high word of the product by M = 2^30: [0, 16256], + 32, >> 6, zero point
// -128) is in [-128, 126]: both bounds of the clamp to [-128, 127] are no-ops and go.

func.func @gate(%x: memref<8xi8>, %g: memref<8xi8>, %out: memref<8xi8>) {
  linalg.generic {indexing_maps = [affine_map<(w) -> (w)>, affine_map<(w) -> (w)>, affine_map<(w) -> (w)>], iterator_types = ["parallel"]} ins(%x, %g : memref<8xi8>, memref<8xi8>) outs(%out : memref<8xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %zp = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %m = arith.constant 1073741824 : i32
    %half = arith.constant 32 : i32
    %n = arith.constant 6 : i32
    %ae = arith.extsi %a : i8 to i32
    %ac = arith.subi %ae, %zp : i32
    %be = arith.extsi %b : i8 to i32
    %bc = arith.subi %be, %zp : i32
    %p = arith.muli %ac, %bc : i32
    %low, %high = arith.mulsi_extended %p, %m : i32
    %r = arith.addi %high, %half : i32
    %s = arith.shrsi %r, %n : i32
    %z = arith.addi %s, %zp : i32
    %lo_clamped = arith.maxsi %z, %zp : i32
    %clamped = arith.minsi %lo_clamped, %hi : i32
    %t = arith.trunci %clamped : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// CHECK-LABEL: func.func @gate
// CHECK:         %s = arith.shrsi %r, %n : i32
// CHECK-NEXT:    %z = arith.addi %s, %zp : i32
// CHECK-NEXT:    %t = arith.trunci %z : i32 to i8
// CHECK-NEXT:    linalg.yield %t : i8
