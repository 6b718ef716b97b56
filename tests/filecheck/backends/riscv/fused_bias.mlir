// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// The bias alone fused (backends/riscv/schedule/fused_epilogue.py): the contraction's register tile
// has 16 points and a reduction of 32 (longer than `fused_epilogue.SHORT_REDUCTION`), so its
// requantization epilogue stays a nest of its own (copied per tile point it would make `.text`
// larger), but the bias broadcast into the i32 buffer is not a nest any more:
// the accumulators start as the bias (4 columns a tile, lw from the bias panel whose pointer is
// the column loop's variable, in that loop: each tile copies the bias into the reduction loop's
// accumulators anyway, so it is loaded there rather than held through the column loop), the tile
// is stored once into the buffer, and the epilogue's nest reads it.

"memref.global"() <{sym_name = "w", type = memref<8x32xi8>, initial_value = dense<1> : tensor<8x32xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "bias", type = memref<8xi32>, initial_value = dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "shift", type = memref<8xi32>, initial_value = dense<[1, 2, 3, 1, 2, 3, 1, 2]> : tensor<8xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @bias_fused(%x: memref<8x32xi8>, %out: memref<8x8xi8>, %workspace: memref<256xi8>) {
  %w = memref.get_global @w : memref<8x32xi8>
  %bias = memref.get_global @bias : memref<8xi32>
  %offset = arith.constant 0 : index
  %acc = memref.view %workspace[%offset][] : memref<256xi8> to memref<8x8xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<8xi32>) outs(%acc : memref<8x8xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<8x32xi8>, memref<8x32xi8>) outs(%acc : memref<8x8xi32>) {
  ^bb0(%a: i8, %v: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %ve = arith.extsi %v : i8 to i32
    %p = arith.muli %ae, %ve : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  %shift = memref.get_global @shift : memref<8xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %shift : memref<8x8xi32>, memref<8xi32>) outs(%out : memref<8x8xi8>) {
  ^bb0(%c: i32, %k: i32, %o: i8):
    %r = arith.shrsi %c, %k : i32
    %n = arith.trunci %r : i32 to i8
    linalg.yield %n : i8
  }
  func.return
}

// The nest's own copy of each buffer argument (and of the workspace view at offset 0; the nest is
// numbered 2, its contraction's position among the generics): its loops
// start from the copy, so the argument itself may be stored around other nests.
// CHECK:      riscv.mv %{{[0-9]+}} {bitfold.nest = #builtin.int<2>}
// CHECK-NOT:  rvmem.sw
// CHECK:      riscv_scf.for %{{.*}} : !riscv.reg = %{{.*}} step 128 : si12
// CHECK-NOT:    rvmem.lw
// CHECK:        riscv_scf.for %[[BIAS:[0-9]+]] : !riscv.reg = %{{.*}} to %{{.*}} step 16 : si12 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[ACC:[0-9]+]] = %{{.*}})
// CHECK-NEXT:     rvmem.lw %[[BIAS]], 0
// CHECK:          rvmem.lw %[[BIAS]], 12
// CHECK-NOT:      rvmem.lw
// CHECK:          riscv_scf.for
// CHECK:          riscv_scf.yield
// CHECK:          rvmem.sw %[[ACC]], %{{.*}}, 0
// CHECK:          rvmem.sw %[[ACC]], %{{.*}}, 108
// CHECK:          riscv_scf.yield
// CHECK:      memref.get_global @shift_panel0
// CHECK:      riscv_scf.for
// CHECK:        riscv_scf.for
// CHECK:          rvmem.lw
// CHECK:          arith.shrsi
// CHECK:          rvmem.sb
// CHECK-NOT:  riscv_scf.for
// CHECK:      func.return
