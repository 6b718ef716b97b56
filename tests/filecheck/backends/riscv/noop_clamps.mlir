// RUN: bitfold-opt %s --split-input-file -p bitfold-riscv-noop-clamps | filecheck %s

// A requantization's two-sided clamp to i8 (max by -128, min by 127) on a value the ranges do not
// bound to [-128, 127] stays as it is (bitfold-riscv-lower-arith makes each bound a branch over a
// move without Zbb).

func.func @requantize(%acc: memref<8xi32>, %m: i32, %out: memref<8xi8>) {
  linalg.generic {indexing_maps = [affine_map<(w) -> (w)>, affine_map<(w) -> (w)>], iterator_types = ["parallel"]} ins(%acc : memref<8xi32>) outs(%out : memref<8xi8>) {
  ^bb0(%a: i32, %o: i8):
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %zp = arith.constant 7 : i32
    %l, %h = arith.mulsi_extended %a, %m : i32
    %z = arith.addi %h, %zp : i32
    %x = arith.maxsi %z, %lo : i32
    %y = arith.minsi %x, %hi : i32
    %t = arith.trunci %y : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// CHECK-LABEL: func.func @requantize
// CHECK:         %z = arith.addi %h, %zp : i32
// CHECK-NEXT:    %x = arith.maxsi %z, %lo : i32
// CHECK-NEXT:    %y = arith.minsi %x, %hi : i32
// CHECK-NEXT:    %t = arith.trunci %y : i32 to i8

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
