// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A padding's copy elided (padded_outputs.py, workspace_replan.py): the producer of the copy's
// source y writes the interior of the padded buffer p (row 1, column 1: byte 7 of each 6 x 6
// channel) after p's fill, and no nest copies y. The workspace is planned again: y (bytes 0..32)
// is no longer used, p moves to offset 0 and lives from the producer on; its size stays 104.

func.func @pad(%x: memref<2x4x4xi8>, %out: memref<2x6x6xi8>, %workspace: memref<104xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 104 : i64} {
  %c0 = arith.constant 0 : index
  %y = memref.view %workspace[%c0][] : memref<104xi8> to memref<2x4x4xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<2x4x4xi8>) outs(%y : memref<2x4x4xi8>) {
  ^bb0(%v: i8, %o: i8):
    %one = arith.constant 1 : i8
    %s = arith.addi %v, %one : i8
    linalg.yield %s : i8
  }
  %c32 = arith.constant 32 : index
  %p = memref.view %workspace[%c32][] : memref<104xi8> to memref<2x6x6xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%p : memref<2x6x6xi8>) {
  ^bb0(%o: i8):
    %z = arith.constant -3 : i8
    linalg.yield %z : i8
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h + 1, w + 1)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : memref<2x4x4xi8>) outs(%p : memref<2x6x6xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : memref<2x6x6xi8>) outs(%out : memref<2x6x6xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  func.return
}

// CHECK:      func.func @pad(%x: memref<2x4x4xi8>, %out: memref<2x6x6xi8>, %workspace: memref<104xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 104 : i64}
// The fill of p, by words, first.
// CHECK:      riscv_scf.for %[[P:[0-9]+]] : !riscv.reg = %{{.*}} step 12 : si12 {
// CHECK:        rvmem.sw %[[P]], %{{.*}}, 0
// CHECK:      } {bitfold.nest = #builtin.int<2>}
// The producer: y's elements stored at p's row 1, column 1, rows of 6 bytes.
// CHECK:      riscv_scf.for %{{.*}} step 16 : si12 iter_args(%{{.*}} = %{{.*}}) -> (!riscv.reg) {
// CHECK:        riscv_scf.for %{{.*}} step 4 : si12 iter_args(%[[ROW:[0-9]+]] = %{{.*}}) -> (!riscv.reg) {
// CHECK:          rvmem.sb %[[ROW]], %{{.*}}, 7
// CHECK:          rvmem.sb %[[ROW]], %{{.*}}, 10
// CHECK:          riscv.addi %[[ROW]], 6
// CHECK:      } {bitfold.nest = #builtin.int<1>}
// No copy of y (nest 3): the next nest copies p to the output.
// CHECK-NOT:  bitfold.nest = #builtin.int<3>
// CHECK:      } {bitfold.nest = #builtin.int<4>}
