// RUN: bitfold-opt %s -p bitfold-llvm-index-to-i32 | filecheck %s

// RV32 vector targets: generics become loops, every index loop counter an i32 one read through
// index_cast (a strip loop's run-time step `16 * vscale` included); the address arithmetic stays on index.

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
