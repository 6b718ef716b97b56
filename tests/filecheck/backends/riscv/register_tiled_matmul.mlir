// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// An 8x16 @ 16x8 product (u8 x s8 -> i32 accumulated into the output): three loops over pointers.
// Rows in tiles of 4 (the loop variable is the x pointer, 4 rows = 64 bytes a step), columns in
// tiles of 4 (the loop variable is the output pointer, 4 x i32 = 16 bytes), and the reduction
// unrolled by 4 (the loop variable is the x pointer again, 4 bytes a step). The 16 accumulators
// (a 4 x 4 tile: the outer loops' state is stored around the reduction loop where registers
// run out, regalloc/loop_state_spilling.py) are loaded once per tile at their offsets in the
// output (row stride 32 bytes), carried through the reduction loop with the w pointer, and
// stored once. In the reduction loop every load is at an immediate offset from its pointer:
// x rows 16 bytes apart, w columns 1 byte apart and k steps 8 bytes apart; the extensions are
// folded into lbu (extui) and lb (extsi). The w pointer advances 32 bytes per reduction step;
// after the reduction loop it moves to the next 4 columns (+4) and back over the 16 rows it
// walked (-128): -124.

func.func @mm(%a: memref<8x16xi8>, %w: memref<16x8xi8>, %out: memref<8x8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<8x16xi8>, memref<16x8xi8>) outs(%out : memref<8x8xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK:      riscv_scf.for %[[X:.*]] : !riscv.reg = %{{.*}} to %{{.*}} step 64 : si12 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK:        riscv_scf.for %[[OUT:.*]] : !riscv.reg = %{{.*}} to %{{.*}} step 16 : si12 iter_args(%{{.*}} = %[[X]], %{{.*}} = %{{.*}})
// CHECK-NEXT:     rvmem.lw %[[OUT]], 0
// CHECK:          rvmem.lw %[[OUT]], 12
// CHECK:          rvmem.lw %[[OUT]], 108
// CHECK:          riscv_scf.for %[[XK:.*]] : !riscv.reg = %{{.*}} to %{{.*}} step 4 : si12 iter_args(%[[W:[^ ]*]] = %{{.*}})
// CHECK:            rvmem.lbu %[[XK]], 0
// CHECK:            rvmem.lb %[[W]], 0
// CHECK:            arith.muli
// CHECK-NEXT:       arith.addi
// CHECK:            rvmem.lb %[[W]], 3
// CHECK:            rvmem.lbu %[[XK]], 16
// CHECK:            rvmem.lbu %[[XK]], 48
// CHECK:            rvmem.lb %[[W]], 8
// CHECK:            rvmem.lbu %[[XK]], 51
// CHECK:            riscv.addi %[[W]], 32
// CHECK:            riscv_scf.yield
// CHECK:          rvmem.sw %[[OUT]], %{{.*}}, 0
// CHECK:          rvmem.sw %[[OUT]], %{{.*}}, 108
// CHECK:          riscv.addi %{{.*}}, -124
// CHECK:          riscv_scf.yield
// CHECK:        riscv_scf.yield
// CHECK-NOT:  linalg.generic
