// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A sliding window shares its loads along the kernel's column (loop_nest_plan.py, step 3): a
// depthwise 3x3 convolution of one output row, 8 channels. A 2 x 8 tile (2 channels, the 8 pixels)
// would hold 16 accumulators and 2 x 10 input bytes through each kernel row: more than the
// registers (`held_row`). The plan is a 1 x 4 tile: per channel the 9 weights are loaded once,
// outside the loop over the row's pixels, and per kernel row the 4 outputs read 6 input bytes,
// each loaded once (offsets 0..5, 10..15, 20..25) and used by up to 3 kernel columns: not 3 x 4
// loads.

"memref.global"() <{sym_name = "w", type = memref<8x3x3xi8>, initial_value = dense<1> : tensor<8x3x3xi8>, sym_visibility = "private", constant}> : () -> ()

func.func @depthwise(%x: memref<8x3x10xi8>, %out: memref<8x1x8xi32>) {
  %w = memref.get_global @w : memref<8x3x3xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h + kh, w + kw)>, affine_map<(c, h, w, kh, kw) -> (c, kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<8x3x10xi8>, memref<8x3x3xi8>) outs(%out : memref<8x1x8xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  func.return
}

// CHECK:      riscv_scf.for %[[W:.*]] : !riscv.reg = %{{.*}} step 9 : si12 iter_args(%[[X0:[^ ]*]] = %{{.*}}, %[[OUT0:[^ ]*]] = %{{.*}})
// CHECK-COUNT-9: rvmem.lb %[[W]], {{[0-8]}} :
// CHECK:        riscv_scf.for %[[X:.*]] : !riscv.reg = %[[X0]] : !riscv.reg to %{{.*}} step 4 : si12 iter_args(%[[OUT:[^ ]*]] = %[[OUT0]])
// CHECK-NOT:      rvmem.lb %[[W]]
// CHECK:          rvmem.lw %[[OUT]], 12
// CHECK:          rvmem.lb %[[X]], 0 :
// CHECK:          rvmem.lb %[[X]], 1 :
// CHECK:          rvmem.lb %[[X]], 2 :
// CHECK:          rvmem.lb %[[X]], 3 :
// CHECK:          rvmem.lb %[[X]], 4 :
// CHECK:          rvmem.lb %[[X]], 5 :
// CHECK-NOT:      rvmem.lb %[[X]], {{[0-5]}} :
// CHECK:          rvmem.lb %[[X]], 10 :
// CHECK:          rvmem.lb %[[X]], 11 :
// CHECK:          rvmem.lb %[[X]], 12 :
// CHECK:          rvmem.lb %[[X]], 13 :
// CHECK:          rvmem.lb %[[X]], 14 :
// CHECK:          rvmem.lb %[[X]], 15 :
// CHECK-NOT:      rvmem.lb %[[X]], {{[0-5]|1[0-5]}} :
// CHECK:          rvmem.lb %[[X]], 20 :
// CHECK:          rvmem.lb %[[X]], 21 :
// CHECK:          rvmem.lb %[[X]], 22 :
// CHECK:          rvmem.lb %[[X]], 23 :
// CHECK:          rvmem.lb %[[X]], 24 :
// CHECK:          rvmem.lb %[[X]], 25 :
// CHECK-NOT:      rvmem.lb
// CHECK:          rvmem.sw %[[OUT]], %{{.*}}, 12
// CHECK:          riscv_scf.yield
// CHECK-NOT:  linalg.generic
