// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A depthwise 3x3 layer's requantization fused into its nest (fused_epilogue.py): 9 MACs an
// output (a reduction up to `SHORT_REDUCTION`), where a separate epilogue nest would add about 5
// instructions an output. The tile is capped at 4 points (`FUSED_EPILOGUE_COPIES`: the epilogue
// is copied once per tile point): the accumulators start as the bias (lw from the bias panel),
// the 3 x 3 window is reduced, the epilogue runs on the tile and each output is stored once as
// i8 (sb): no i32 store, no second nest.

"memref.global"() <{sym_name = "w", type = memref<8x3x3xi8>, initial_value = dense<1> : tensor<8x3x3xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "bias", type = memref<8xi32>, initial_value = dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "shift", type = memref<8xi32>, initial_value = dense<[1, 2, 3, 1, 2, 3, 1, 2]> : tensor<8xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @depthwise(%x: memref<8x3x10xi8>, %out: memref<8x1x8xi8>, %workspace: memref<256xi8>) {
  %w = memref.get_global @w : memref<8x3x3xi8>
  %bias = memref.get_global @bias : memref<8xi32>
  %offset = arith.constant 0 : index
  %acc = memref.view %workspace[%offset][] : memref<256xi8> to memref<8x1x8xi32>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<8xi32>) outs(%acc : memref<8x1x8xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h + kh, w + kw)>, affine_map<(c, h, w, kh, kw) -> (c, kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<8x3x10xi8>, memref<8x3x3xi8>) outs(%acc : memref<8x1x8xi32>) {
  ^bb0(%a: i8, %v: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %ve = arith.extsi %v : i8 to i32
    %p = arith.muli %ae, %ve : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  %shift = memref.get_global @shift : memref<8xi32>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc, %shift : memref<8x1x8xi32>, memref<8xi32>) outs(%out : memref<8x1x8xi8>) {
  ^bb0(%c: i32, %k: i32, %o: i8):
    %r = arith.shrsi %c, %k : i32
    %n = arith.trunci %r : i32 to i8
    linalg.yield %n : i8
  }
  func.return
}

// CHECK:      riscv_scf.for %{{.*}} step 9 : si12 iter_args(%{{.*}}, %[[PANEL:[^ ]*]] = %{{.*}}, %{{.*}})
// CHECK:        rvmem.lw %[[PANEL]], 0
// CHECK:        riscv_scf.for %[[X:.*]] : !riscv.reg = %{{.*}} step 4 : si12 iter_args(%[[OUT:[^ ]*]] = %{{.*}})
// CHECK-NOT:      rvmem.sw
// CHECK:          rvmem.lb %[[X]], 23
// CHECK:          rvmem.lw %[[PANEL]], 4
// CHECK-NEXT:     builtin.unrealized_conversion_cast
// CHECK-NEXT:     arith.shrsi
// CHECK:          rvmem.sb %[[OUT]], %{{.*}}, 0
// CHECK:          rvmem.sb %[[OUT]], %{{.*}}, 3
// CHECK-NOT:      rvmem.sw
// CHECK:          riscv_scf.yield
// CHECK:        riscv_scf.yield
// CHECK-NOT:  riscv_scf.for
// CHECK-NOT:  linalg.generic
