// RUN: bitfold-opt %s -p bitfold-riscv-linalg-to-loops | filecheck %s

// A reduction generic (parallel dims, then reduction dims, the output read at the parallel
// dims only) keeps its accumulator in a register: the output element is loaded once before
// the reduction loop, carried through it as an iter_arg and stored once after it (xDSL's
// perfect nest would load and store it in every iteration).

func.func @row_sums(%x : memref<2x3xi32>, %out : memref<2xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x3xi32>) outs(%out : memref<2xi32>) {
  ^bb0(%a : i32, %acc : i32):
    %s = arith.addi %acc, %a : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[COLUMNS:.*]] = arith.constant 3 : index
// CHECK-NEXT: scf.for %[[I:.*]] = %[[ZERO]] to %[[ROWS]] step %[[ONE]] {
// CHECK-NEXT:   %[[INIT:.*]] = memref.load %out[%[[I]]] : memref<2xi32>
// CHECK-NEXT:   %[[SUM:.*]] = scf.for %[[J:.*]] = %[[ZERO]] to %[[COLUMNS]] step %[[ONE]] iter_args(%acc = %[[INIT]]) -> (i32) {
// CHECK-NEXT:     %a = memref.load %x[%[[I]], %[[J]]] : memref<2x3xi32>
// CHECK-NEXT:     %s = arith.addi %acc, %a : i32
// CHECK-NEXT:     scf.yield %s : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.store %[[SUM]], %out[%[[I]]] : memref<2xi32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
