// RUN: bitfold-opt %s -p bitfold-llvm-merge-elementwise-rows | filecheck %s

// An elementwise generic iterates over rows x columns as one dim where every operand holds them last
// and contiguously (N x C x H x W with per-channel parameters: H x W merged, C kept); a generic with
// an operand reading them shifted (a padding copy) or with a reduction stays.

func.func @requantize(%acc: memref<1x4x25x5xi32>, %scale: memref<4xi32>, %out: memref<1x4x25x5xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %scale : memref<1x4x25x5xi32>, memref<4xi32>) outs(%out : memref<1x4x25x5xi8>) {
  ^bb0(%a: i32, %s: i32, %o: i8):
    %p = arith.muli %a, %s : i32
    %t = arith.trunci %p : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// CHECK-LABEL: func.func @requantize
// CHECK-NEXT:  %[[ACC:.*]] = memref.collapse_shape %acc {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] : memref<1x4x25x5xi32> into memref<1x4x125xi32>
// CHECK-NEXT:  %[[OUT:.*]] = memref.collapse_shape %out {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] : memref<1x4x25x5xi8> into memref<1x4x125xi8>
// CHECK-NEXT:  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[ACC]], %scale : memref<1x4x125xi32>, memref<4xi32>) outs(%[[OUT]] : memref<1x4x125xi8>)
// CHECK-NEXT:  ^{{.*}}(%a: i32, %s: i32, %o: i8):
// CHECK-NEXT:    %p = arith.muli %a, %s : i32

func.func @fill(%out: memref<2x3x4xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%out : memref<2x3x4xi32>) {
  ^bb0(%o: i32):
    %z = arith.constant 0 : i32
    linalg.yield %z : i32
  }
  func.return
}

// CHECK-LABEL: func.func @fill
// CHECK-NEXT:  %[[A:.*]] = memref.collapse_shape %out {{\[\[}}0 : i64], [1 : i64, 2 : i64]] : memref<2x3x4xi32> into memref<2x12xi32>
// CHECK-NEXT:  %[[B:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0 : i64, 1 : i64]] : memref<2x12xi32> into memref<24xi32>
// CHECK-NEXT:  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[B]] : memref<24xi32>)

func.func @pad(%x: memref<1x2x3x3xi8>, %out: memref<1x2x5x5xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x3x3xi8>) outs(%out : memref<1x2x5x5xi8>) {
  ^bb0(%a: i8, %o: i8):
    linalg.yield %a : i8
  }
  func.return
}

// CHECK-LABEL: func.func @pad
// CHECK-NOT:   memref.collapse_shape
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + 1), (d3 + 1))>]

func.func @sum(%x: memref<2x3xi32>, %out: memref<2xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x3xi32>) outs(%out : memref<2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %s = arith.addi %a, %o : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @sum
// CHECK-NOT:   memref.collapse_shape
// CHECK:       iterator_types = ["parallel", "reduction"]
