// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A fused epilogue (backends/riscv/schedule/fused_epilogue.py): the bias broadcast into the i32 buffer, the
// contraction accumulating into it and the elementwise epilogue reading it become one nest. The
// bias and the epilogue's per-column table share one interleaved panel ([b0, b1, b2, s0, s1, s2]);
// the accumulators start as the bias (lw before the reduction loop), the epilogue runs on the
// 1 x 3 register tile after it (its table loaded there) and each output is stored once, as i8: no
// i32 store, no second nest. (A tile of 4 points or more keeps the nests apart: `.text` would grow.)
// The nest is numbered 2, its contraction's position among the generics.

"memref.global"() <{sym_name = "w", type = memref<3x8xi8>, initial_value = dense<1> : tensor<3x8xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "bias", type = memref<3xi32>, initial_value = dense<[1, 2, 3]> : tensor<3xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "shift", type = memref<3xi32>, initial_value = dense<[1, 2, 3]> : tensor<3xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @fused(%x: memref<1x8xi8>, %out: memref<1x3xi8>, %workspace: memref<64xi8>) {
  %w = memref.get_global @w : memref<3x8xi8>
  %bias = memref.get_global @bias : memref<3xi32>
  %offset = arith.constant 0 : index
  %acc = memref.view %workspace[%offset][] : memref<64xi8> to memref<1x3xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<3xi32>) outs(%acc : memref<1x3xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<1x8xi8>, memref<3x8xi8>) outs(%acc : memref<1x3xi32>) {
  ^bb0(%a: i8, %v: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %ve = arith.extsi %v : i8 to i32
    %p = arith.muli %ae, %ve : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  %shift = memref.get_global @shift : memref<3xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %shift : memref<1x3xi32>, memref<3xi32>) outs(%out : memref<1x3xi8>) {
  ^bb0(%c: i32, %k: i32, %o: i8):
    %r = arith.shrsi %c, %k : i32
    %n = arith.trunci %r : i32 to i8
    linalg.yield %n : i8
  }
  func.return
}

// CHECK:      "memref.global"() <{sym_name = "bias_panel0", type = memref<6xi32>, initial_value = dense<[1, 2, 3, 1, 2, 3]> : tensor<6xi32>
// CHECK:      %[[BIAS_0:.*]] = rvmem.lw %[[PANEL:.*]], 0
// CHECK:      rvmem.lw %[[PANEL]], 4
// CHECK:      rvmem.lw %[[PANEL]], 8
// CHECK:      riscv_scf.for
// CHECK-NOT:    rvmem.sw
// CHECK:        riscv_scf.yield
// CHECK-NEXT: } {bitfold.nest = #builtin.int<2>}
// CHECK:      rvmem.lw %[[PANEL]], 12
// CHECK:      arith.shrsi
// CHECK-NEXT: arith.trunci %{{.*}} : i32 to i8
// CHECK:      rvmem.sb %{{.*}}, %{{.*}}, 0
// CHECK:      rvmem.lw %[[PANEL]], 16
// CHECK:      rvmem.sb %{{.*}}, %{{.*}}, 1
// CHECK:      rvmem.lw %[[PANEL]], 20
// CHECK:      rvmem.sb %{{.*}}, %{{.*}}, 2
// CHECK-NOT:  rvmem.sw
// CHECK-NOT:  riscv_scf.for
// CHECK:      func.return
