// RUN: bitfold-opt %s -p bitfold-llvm-index-to-i32 | filecheck %s

// RV32 vector targets: generics become loops, every index loop counter an i32 one read through
// index_cast (a strip loop's run-time step `16 * vscale` included); a buffer index of sums and
// constant multiples is computed on i32 from the counters and sign-extended to index, one with a
// division stays an affine.apply on index.

func.func @sum_rows(%a: memref<4x8xi32>, %out: memref<4xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x8xi32>) outs(%out : memref<4xi32>) {
  ^bb0(%x: i32, %acc: i32):
    %s = arith.addi %x, %acc : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @sum_rows
// CHECK-NOT:   linalg.generic
// CHECK:       %[[LB:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:  %[[UB:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:  %[[ST:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:  scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %[[ST]] : i32 {
// CHECK-NEXT:    %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK:         %{{.*}} = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32) : i32 {
// CHECK-NEXT:      %[[KK:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT:      %{{.*}} = memref.load %a[%[[II]], %[[KK]]] : memref<4x8xi32>
// CHECK:         memref.store %{{.*}}, %out[%[[II]]] : memref<4xi32>

func.func @strip(%out: memref<40xi32>, %vscale: index) {
  %c0 = arith.constant 0 : index
  %c40 = arith.constant 40 : index
  %c16 = arith.constant 16 : index
  %step = arith.muli %vscale, %c16 : index
  scf.for %j = %c0 to %c40 step %step {
    %v = arith.index_cast %j : index to i32
    memref.store %v, %out[%j] : memref<40xi32>
  }
  func.return
}

// CHECK-LABEL: func.func @strip
// CHECK:       %[[STEP:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:       %[[S32:.*]] = arith.index_cast %[[STEP]] : index to i32
// CHECK-NEXT:  scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[S32]] : i32 {
// CHECK-NEXT:    %[[JJ:.*]] = arith.index_cast %[[J]] : i32 to index
// CHECK-NEXT:    %{{.*}} = arith.index_cast %[[JJ]] : index to i32
// CHECK-NEXT:    memref.store %{{.*}}, %out[%[[JJ]]] : memref<40xi32>

func.func @taps(%a: memref<40xi8>, %out: memref<4xi8>, %h: memref<2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %k = affine.apply affine_map<(d0) -> (d0 * 10 + 2)> (%i)
    %x = memref.load %a[%k] : memref<40xi8>
    memref.store %x, %out[%i] : memref<4xi8>
    %half = affine.apply affine_map<(d0) -> (d0 floordiv 2)> (%i)
    memref.store %x, %h[%half] : memref<2xi8>
  }
  func.return
}

// CHECK-LABEL: func.func @taps
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:    %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:    %[[TEN:.*]] = arith.constant 10 : i32
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[I]], %[[TEN]] : i32
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[M]], %[[TWO]] : i32
// CHECK-NEXT:    %[[K:.*]] = arith.index_cast %[[S]] : i32 to index
// CHECK-NEXT:    %[[X:.*]] = memref.load %a[%[[K]]] : memref<40xi8>
// CHECK-NEXT:    memref.store %[[X]], %out[%[[II]]] : memref<4xi8>
// CHECK-NEXT:    %[[HALF:.*]] = affine.apply affine_map<(d0) -> ((d0 floordiv 2))> (%[[II]])
// CHECK-NEXT:    memref.store %[[X]], %h[%[[HALF]]] : memref<2xi8>
