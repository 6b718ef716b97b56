// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// The copy of a padded input whose rows are 5 bytes (DS-CNN's 25 x 5 feature maps into their
// 27 x 7 padded buffer): 4 does not divide the row, so the row loop is unrolled by 5
// (`loop_nest_plan.ELEMENTWISE_UNROLL_ODD`): one iteration copies the whole row (5 lb, 5 sb),
// rather than one byte an iteration.

func.func @copy(%x: memref<2x25x5xi8>, %out: memref<2x27x7xi8>) {
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h + 1, w + 1)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<2x25x5xi8>) outs(%out : memref<2x27x7xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  func.return
}

// The loop over channels, the loop over rows (5 bytes of x, 7 of the padded buffer), no loop
// over the row's bytes.
// CHECK:      riscv_scf.for %{{.*}} step 125 : si12
// CHECK:        riscv_scf.for %[[X:[0-9]+]] : !riscv.reg = %{{.*}} step 5 : si12
// CHECK-NOT:      riscv_scf.for
// CHECK:          rvmem.lb %[[X]], 0
// CHECK:          rvmem.lb %[[X]], 4
// CHECK-NOT:      rvmem.lb
// CHECK:          rvmem.sb %{{.*}}, %{{.*}}, 8
// CHECK:          rvmem.sb %{{.*}}, %{{.*}}, 12
// CHECK-NOT:      rvmem.sb
// CHECK:          riscv_scf.yield
