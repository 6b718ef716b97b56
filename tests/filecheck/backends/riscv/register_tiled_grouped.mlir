// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A grouped 3x3 convolution (group_dimensions.py): 8 output channels in 2 groups of 4, each group
// reading its own 4 input channels at `(m floordiv 4) * 4 + ci`. The output channel m is split into
// the group g and the channel within it (m = 4 g + m_i): the groups are the outer loop (its
// variable the x pointer, 4 channels of 3 x 10 bytes = 120 bytes a group), and each group is a
// register-tiled convolution of 4 -> 4 channels over the output row.

func.func @grouped(%x: memref<8x3x10xi8>, %w: memref<8x4x3x3xi8>, %out: memref<8x1x8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, h, w, ci, kh, kw) -> ((m floordiv 4) * 4 + ci, h + kh, w + kw)>, affine_map<(m, h, w, ci, kh, kw) -> (m, ci, kh, kw)>, affine_map<(m, h, w, ci, kh, kw) -> (m, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<8x3x10xi8>, memref<8x4x3x3xi8>) outs(%out : memref<8x1x8xi32>) {
  ^bb0(%a: i8, %v: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %ve = arith.extsi %v : i8 to i32
    %p = arith.muli %ae, %ve : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  func.return
}

// The group loop: the x pointer steps over a group's 4 input channels (120 bytes); the w and out
// pointers are carried. In each group a 4 x 4 tile (4 channels of the group, 4 pixels of the row,
// 16 accumulators loaded at the output's offsets, channels 32 bytes apart) reduces over the
// group's input channels (30 bytes a step) and the unrolled 3 x 3 window, x at small
// immediates, w at the 4 channels' offsets (36 bytes apart). Past the tile loop the w pointer moves
// to the next group's channels (+144: 4 x 4 x 9) and out to the next group's (+128 - 32 walked).

// CHECK:      riscv_scf.for %[[X:.*]] : !riscv.reg = %{{.*}} to %{{.*}} step 120 : si12 iter_args(%[[W:[^ ]*]] = %{{.*}}, %[[OUT:[^ ]*]] = %{{.*}})
// CHECK:        riscv_scf.for %[[T:.*]] : !riscv.reg = %[[OUT]] : !riscv.reg to %{{.*}} step 16 : si12 iter_args(%[[TX:[^ ]*]] = %[[X]], %[[TW:[^ ]*]] = %[[W]])
// CHECK-NEXT:     rvmem.lw %[[T]], 0
// CHECK:          rvmem.lw %[[T]], 108
// CHECK:          riscv_scf.for %[[C:.*]] : !riscv.reg = %[[TX]] : !riscv.reg to %{{.*}} step 30 : si12 iter_args(%[[CW:[^ ]*]] = %[[TW]],
// CHECK:            rvmem.lb %[[C]], 0 :
// CHECK:            rvmem.lb %[[CW]], 0 :
// CHECK:            rvmem.lb %[[CW]], 36 :
// CHECK:            rvmem.lb %[[CW]], 72 :
// CHECK:            rvmem.lb %[[CW]], 108 :
// CHECK:            riscv.addi %[[CW]], 9
// CHECK:            riscv_scf.yield
// CHECK:          rvmem.sw %[[T]], %{{.*}}, 0
// CHECK:          rvmem.sw %[[T]], %{{.*}}, 108
// CHECK:          riscv_scf.yield
// CHECK:        riscv.addi %{{.*}}, 144
// CHECK-NEXT:   riscv.addi %{{.*}}, 96
// CHECK-NEXT:   riscv_scf.yield
// CHECK-NOT:  linalg.generic
