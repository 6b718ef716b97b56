// RUN: bitfold-opt %s -p bitfold-llvm-vector-copy --disable-verify | filecheck %s
// RUN: bitfold-opt %s -p bitfold-llvm-vector-copy,bitfold-llvm-index-to-i32 --disable-verify | filecheck %s --check-prefix=RV32

// A padding copy of short rows (64 channels of 25 x 5 into 27 x 7) is vectorized over its channels,
// the dim of the fewest strips: one strided load (channel stride 125) and one strided store (channel
// stride 27 * 7 = 189) a pixel, the tail masked. A copy of rows of 12 or 40 over 2 channels keeps its
// rows: contiguous masked loads and stores (two strips a row of 40 at VLEN 128). A generic that
// computes and a copy of i1 elements (a byte each in memory, packed bits in an LLVM vector) stay.

func.func @narrow_rows(%x: memref<1x64x25x5xi8>, %padded: memref<1x64x27x7xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x64x25x5xi8>) outs(%padded : memref<1x64x27x7xi8>) {
  ^bb0(%a: i8, %b: i8):
    linalg.yield %a : i8
  }
  func.return
}

// CHECK-LABEL: func.func @narrow_rows
// CHECK:       %[[X:.*]] = memref.collapse_shape %x {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x64x25x5xi8> into memref<8000xi8>
// CHECK-NEXT:  %[[P:.*]] = memref.collapse_shape %padded {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x64x27x7xi8> into memref<12096xi8>
// CHECK:       arith.constant 25 : index
// CHECK:       arith.constant 5 : index
// CHECK:       %[[C:.*]] = arith.constant 64 : index
// CHECK:       scf.for %[[C0:.*]] = %{{.*}} to %[[C]] step %{{.*}} {
// CHECK:         %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<[16]xi1>
// CHECK-NEXT:    %[[FROM:.*]] = affine.apply affine_map<(d0, d1, d2, d3) -> (((((d0 * 8000) + (d1 * 125)) + (d2 * 5)) + d3))> (%{{.*}}, %[[C0]], %{{.*}}, %{{.*}})
// CHECK-NEXT:    %[[TO:.*]] = affine.apply affine_map<(d0, d1, d2, d3) -> (((((d0 * 12096) + (d1 * 189)) + ((d2 * 7) + 7)) + (d3 + 1)))> (%{{.*}}, %[[C0]], %{{.*}}, %{{.*}})
// CHECK-NEXT:    %[[UNREAD:.*]] = llvm.mlir.poison : vector<[16]xi8>
// CHECK-NEXT:    %[[S125:.*]] = arith.constant 125 : index
// CHECK-NEXT:    %[[SPLAT:.*]] = vector.broadcast %[[S125]] : index to vector<[16]xindex>
// CHECK-NEXT:    %[[STEP:.*]] = vector.step : vector<[16]xindex>
// CHECK-NEXT:    %[[LANES:.*]] = arith.muli %[[STEP]], %[[SPLAT]] : vector<[16]xindex>
// CHECK-NEXT:    %[[V:.*]] = vector.gather %[[X]][%[[FROM]]] [%[[LANES]]], %[[MASK]], %[[UNREAD]] : memref<8000xi8>
// CHECK-NEXT:    %[[S189:.*]] = arith.constant 189 : index
// CHECK:         vector.scatter %[[P]][%[[TO]]] [%{{.*}}], %[[MASK]], %[[V]] : memref<12096xi8>
// CHECK-NOT:   linalg.generic

// RV32-LABEL: func.func @narrow_rows
// RV32:         %[[STEP:.*]] = llvm.intr.stepvector : vector<[16]xi32>
// RV32:         vector.gather %{{.*}} : memref<8000xi8>, vector<[16]xi32>
// RV32:         vector.scatter %{{.*}} : memref<12096xi8>, vector<[16]xi32>

func.func @two_channels(%x: memref<1x2x12x12xi8>, %padded: memref<1x2x14x14xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x12x12xi8>) outs(%padded : memref<1x2x14x14xi8>) {
  ^bb0(%a: i8, %b: i8):
    linalg.yield %a : i8
  }
  func.return
}

// CHECK-LABEL: func.func @two_channels
// CHECK:       %[[ROW:.*]] = arith.constant 12 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[ROW]] step %{{.*}} {
// CHECK:         %[[V:.*]] = vector.maskedload %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} : memref<288xi8>
// CHECK-NEXT:    vector.maskedstore %{{.*}}[%{{.*}}], %{{.*}}, %[[V]] : memref<392xi8>
// CHECK-NOT:   vector.gather

func.func @long_rows(%x: memref<1x2x40x40xi8>, %padded: memref<1x2x42x42xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x40x40xi8>) outs(%padded : memref<1x2x42x42xi8>) {
  ^bb0(%a: i8, %b: i8):
    linalg.yield %a : i8
  }
  func.return
}

// CHECK-LABEL: func.func @long_rows
// CHECK:       %[[ROW:.*]] = arith.constant 40 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[ROW]] step %{{.*}} {
// CHECK:         %[[V:.*]] = vector.maskedload %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} : memref<3200xi8>
// CHECK-NEXT:    vector.maskedstore %{{.*}}[%{{.*}}], %{{.*}}, %[[V]] : memref<3528xi8>
// CHECK-NOT:   linalg.generic

func.func @computes(%x: memref<1x64x25x5xi8>, %padded: memref<1x64x27x7xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x64x25x5xi8>) outs(%padded : memref<1x64x27x7xi8>) {
  ^bb0(%a: i8, %b: i8):
    %s = arith.addi %a, %b : i8
    linalg.yield %s : i8
  }
  func.return
}

// CHECK-LABEL: func.func @computes
// CHECK-NEXT:  linalg.generic

func.func @bits(%x: memref<1x2x5x5xi1>, %padded: memref<1x2x7x7xi1>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x5x5xi1>) outs(%padded : memref<1x2x7x7xi1>) {
  ^bb0(%a: i1, %b: i1):
    linalg.yield %a : i1
  }
  func.return
}

// CHECK-LABEL: func.func @bits
// CHECK-NEXT:  linalg.generic
