// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A sliding window shares its loads along the kernel's column (loop_nest_plan.py, step 3): a
// depthwise 3x3 convolution of one output row, 8 channels, planned as a 2 x 8 register tile
// (2 channels, the 8 pixels of the row). Per kernel row the 8 outputs read 10 input bytes, each
// loaded once (offsets 0..9 of channel 0, kernel row 0) and used by up to 3 kernel columns: not
// 3 x 8 loads. The weights (w pointer) are loaded once per channel and kernel point.

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

// CHECK:      riscv_scf.for %[[X:.*]] : !riscv.reg = %{{.*}} step 60 : si12 iter_args(%[[W:[^ ]*]] = %{{.*}}, %[[OUT:[^ ]*]] = %{{.*}})
// CHECK:        rvmem.lw %[[OUT]], 60
// CHECK:        rvmem.lb %[[X]], 0 :
// CHECK:        rvmem.lb %[[W]], 0 :
// CHECK:        rvmem.lb %[[X]], 7 :
// CHECK:        rvmem.lb %[[W]], 1 :
// CHECK-NOT:    rvmem.lb %[[X]], {{[0-7]}} :
// CHECK:        rvmem.lb %[[X]], 8 :
// CHECK:        rvmem.lb %[[W]], 2 :
// CHECK-NOT:    rvmem.lb %[[X]], {{[0-8]}} :
// CHECK:        rvmem.lb %[[X]], 9 :
// CHECK-NOT:    rvmem.lb %[[X]], {{[0-9]}} :
// CHECK:        rvmem.lb %[[X]], 10 :
// CHECK:        rvmem.sw %[[OUT]], %{{.*}}, 60
// CHECK:        riscv_scf.yield
// CHECK-NOT:  linalg.generic
