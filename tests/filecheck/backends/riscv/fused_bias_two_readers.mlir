// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=64}' | filecheck %s

// The bias fused where the accumulator buffer has two readers after the contraction (RV64's
// packed contraction: `bitfold-riscv-pair-lanes` splits each 64-bit sum into its two lanes with
// two generics): neither is an epilogue to fuse, but the broadcast of the bias is still not a
// nest of its own; the accumulators start as the bias (ld from its panel), the tile is stored
// into the buffer (sd) and both readers read it as before.

"memref.global"() <{sym_name = "w", type = memref<8x32xi64>, initial_value = dense<1> : tensor<8x32xi64>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "bias", type = memref<8xi64>, initial_value = dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi64>, sym_visibility = "private", constant}> : () -> ()

func.func @two_readers(%x: memref<8x32xi8>, %low: memref<8x8xi32>, %high: memref<8x8xi32>, %workspace: memref<512xi8>) {
  %w = memref.get_global @w : memref<8x32xi64>
  %bias = memref.get_global @bias : memref<8xi64>
  %offset = arith.constant 0 : index
  %acc = memref.view %workspace[%offset][] : memref<512xi8> to memref<8x8xi64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<8xi64>) outs(%acc : memref<8x8xi64>) {
  ^bb0(%b: i64, %o: i64):
    linalg.yield %b : i64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<8x32xi8>, memref<8x32xi64>) outs(%acc : memref<8x8xi64>) {
  ^bb0(%a: i8, %v: i64, %s: i64):
    %ae = arith.extsi %a : i8 to i64
    %p = arith.muli %ae, %v : i64
    %t = arith.addi %s, %p : i64
    linalg.yield %t : i64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<8x8xi64>) outs(%low : memref<8x8xi32>) {
  ^bb0(%c: i64, %o: i32):
    %n = arith.trunci %c : i64 to i32
    linalg.yield %n : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<8x8xi64>) outs(%high : memref<8x8xi32>) {
  ^bb0(%c: i64, %o: i32):
    %k = arith.constant 32 : i64
    %r = arith.shrsi %c, %k : i64
    %n = arith.trunci %r : i64 to i32
    linalg.yield %n : i32
  }
  func.return
}

// No fill nest (no sd before the first product): the contraction's nest loads its tile from the
// bias panel (ld), reduces, stores the tile once (sd); then the two readers' nests, each loading
// the buffer (ld) and storing its lane (sw).
// CHECK-NOT:  rvmem.sd
// CHECK:      memref.get_global @bias_panel0
// CHECK:      riscv_scf.for
// CHECK:        rvmem.ld
// CHECK-NOT:    rvmem.sd
// CHECK:        riscv_scf.for
// CHECK:          arith.muli
// CHECK:        rvmem.sd
// CHECK:      riscv_scf.for
// CHECK:        rvmem.ld
// CHECK:        rvmem.sw
// CHECK:      riscv_scf.for
// CHECK:        rvmem.ld
// CHECK:        rvmem.sw
// CHECK-NOT:  linalg.generic
