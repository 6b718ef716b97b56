// RUN: bitfold-opt %s -p bitfold-riscv-canonicalize | filecheck %s
// RUN: bitfold-opt %s -p canonicalize | filecheck %s

// bitfold-riscv-canonicalize rewrites as xDSL's canonicalize does (the second RUN line: the same
// checks): constants fold (%c4 * 2 is 8), and ops left dead inside a loop nest are erased with
// the loops that only they kept (the inner loop's sum is never read); the store stays.

func.func @nest(%m : memref<4xindex>, %n : index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %eight = arith.muli %c4, %c2 : index
  scf.for %i = %c0 to %n step %c1 {
    %unused = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %next = arith.addi %acc, %j : index
      scf.yield %next : index
    }
    %dead = arith.muli %i, %eight : index
    memref.store %eight, %m[%c1] : memref<4xindex>
  }
  func.return
}

// CHECK:       func.func @nest(%{{.*}}: memref<4xindex>, %{{.*}}: index) {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    scf.for %{{.*}} = %[[C0]] to %{{.*}} step %[[C1]] {
// CHECK-NEXT:      memref.store %[[C8]], %{{.*}}[%[[C1]]] : memref<4xindex>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
