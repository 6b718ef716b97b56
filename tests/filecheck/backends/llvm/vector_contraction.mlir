// RUN: bitfold-opt %s -p "bitfold-llvm-vector-contraction{payoff=0.0}" --disable-verify | filecheck %s
// RUN: bitfold-opt %s -p "bitfold-llvm-vector-contraction{payoff=0.0},bitfold-llvm-index-to-i32" --disable-verify | filecheck %s --check-prefix=RV32

// The lanes follow the cost model (backends/llvm/contraction_plan.py): a convolution of a narrow image
// (2 x 2 output pixels, 8 output channels) is vectorized over its output channels: the weights re-laid
// out channel-last (one contiguous vector load per tap), two neighbouring output pixels' scalar inputs
// against it, the accumulators gathered and scattered at the output's channel stride (H * W = 4);
// a wide image (32 output columns, 2 channels) over its output columns, contiguous loads and stores;
// a depthwise convolution over its channels, both inputs vectors (its own schedule): the image
// gathered at its channel stride (H * W = 9), the weights re-laid out channel-last, two neighbouring
// output pixels sharing each weight vector (each its own image gather).
// An average pool over a narrow image (3 x 3 pixels, one output pixel) is vectorized over its
// channels, its image gathered at the channel stride (one strided load a window tap).
// The innermost reduction loops are unrolled up to 9 steps an iteration (the convolutions' and the
// pool's kernels whole, no reduction loop), 3 where both inputs are vectors (the depthwise kernel's
// rows: a loop over them, a row's 2 taps a body); a reduction of 16 steps (a matmul's k) runs as a
// loop stepping by 8, eight steps a body.
// The accumulators' and the loads' masked-off lanes are never stored: their pass-through is poison
// (no undisturbed lanes, so LLVM keeps one vector type through the reduction loop). On rv32imv
// (bitfold-llvm-index-to-i32) the gathers' lane offsets are i32 lanes of llvm.intr.stepvector times
// the stride, a pattern LLVM turns into strided loads and stores, and the buffer indices are i32
// arithmetic sign-extended to index (no affine.apply left).

"memref.global"() <{sym_name = "w", type = memref<8x1x2x2xi8>, initial_value = dense<[[[[1, 2], [3, 4]]], [[[5, 6], [7, 8]]], [[[9, 10], [11, 12]]], [[[13, 14], [15, 16]]], [[[17, 18], [19, 20]]], [[[21, 22], [23, 24]]], [[[25, 26], [27, 28]]], [[[29, 30], [31, 32]]]]> : tensor<8x1x2x2xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "v", type = memref<2x1x2x3xi8>, initial_value = dense<[[[[1, 2, 3], [4, 5, 6]]], [[[7, 8, 9], [10, 11, 12]]]]> : tensor<2x1x2x3xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "d", type = memref<8x1x2x2xi8>, initial_value = dense<[[[[1, 2], [3, 4]]], [[[5, 6], [7, 8]]], [[[9, 10], [11, 12]]], [[[13, 14], [15, 16]]], [[[17, 18], [19, 20]]], [[[21, 22], [23, 24]]], [[[25, 26], [27, 28]]], [[[29, 30], [31, 32]]]]> : tensor<8x1x2x2xi8>, sym_visibility = "private", constant}> : () -> ()

func.func @narrow_image(%x: memref<1x1x3x3xi8>, %out: memref<1x8x2x2xi32>) {
  %w = memref.get_global @w : memref<8x1x2x2xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x1x3x3xi8>, memref<8x1x2x2xi8>) outs(%out : memref<1x8x2x2xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @narrow_image
// CHECK:       %[[W:.*]] = memref.get_global @w_1230 : memref<1x2x2x8xi8>
// CHECK-NEXT:  %[[OUT:.*]] = memref.collapse_shape %out {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x8x2x2xi32> into memref<32xi32>
// CHECK:       scf.for %[[OW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:       scf.for %[[OC:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<[16]xi1>
// CHECK:         %[[UNREAD:.*]] = llvm.mlir.poison : vector<[16]xi32>
// CHECK:         %[[STRIDE:.*]] = vector.broadcast %{{.*}} : index to vector<[16]xindex>
// CHECK-NEXT:    %[[STEP:.*]] = vector.step : vector<[16]xindex>
// CHECK-NEXT:    %[[LANES:.*]] = arith.muli %[[STEP]], %[[STRIDE]] : vector<[16]xindex>
// CHECK-NEXT:    %[[ACC0:.*]] = vector.gather %[[OUT]][%{{.*}}] [%[[LANES]]], %[[MASK]], %[[UNREAD]] : memref<32xi32>
// CHECK-NEXT:    %[[ACC1:.*]] = vector.gather %[[OUT]][%{{.*}}] [%[[LANES]]], %[[MASK]], %{{.*}} : memref<32xi32>
// CHECK-NOT:     scf.for
// CHECK:         %[[V:.*]] = vector.maskedload %[[W]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[MASK]], %{{.*}} : memref<1x2x2x8xi8>
// CHECK:         memref.load %x
// CHECK:         arith.muli %{{.*}} : vector<[16]xi32>
// CHECK:         memref.load %x
// CHECK:         arith.muli %{{.*}} : vector<[16]xi32>
// CHECK-COUNT-3: vector.maskedload %[[W]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[MASK]], %{{.*}} : memref<1x2x2x8xi8>
// CHECK-NOT:     vector.maskedload %[[W]]
// CHECK:         vector.scatter %[[OUT]][%{{.*}}] [%[[LANES]]], %[[MASK]], %{{.*}} : memref<32xi32>
// CHECK-NEXT:    vector.scatter %[[OUT]][%{{.*}}] [%[[LANES]]], %[[MASK]], %{{.*}} : memref<32xi32>

// RV32-LABEL: func.func @narrow_image
// RV32:         llvm.mlir.poison
// RV32-NOT:     affine.apply
// RV32:         arith.muli %{{.*}}, %{{.*}} : i32
// RV32:         %[[INDEX:.*]] = arith.index_cast %{{.*}} : i32 to index
// RV32:         %[[STEP:.*]] = llvm.intr.stepvector : vector<[16]xi32>
// RV32-NEXT:    %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<[16]xi32>
// RV32-NEXT:    %[[LANES:.*]] = arith.muli %[[STEP]], %[[SPLAT]] : vector<[16]xi32>
// RV32-NEXT:    %{{.*}} = vector.gather %{{.*}}[%[[INDEX]]] [%[[LANES]]], %{{.*}}, %{{.*}} : memref<32xi32>, vector<[16]xi32>
// RV32:         vector.scatter %{{.*}}[%{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : memref<32xi32>, vector<[16]xi32>

func.func @wide_image(%x: memref<1x1x5x34xi8>, %out: memref<1x2x4x32xi32>) {
  %v = memref.get_global @v : memref<2x1x2x3xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %v : memref<1x1x5x34xi8>, memref<2x1x2x3xi8>) outs(%out : memref<1x2x4x32xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @wide_image
// CHECK-NOT:   vector.gather
// CHECK:       %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<[16]xi1>
// CHECK:       %[[ACC0:.*]] = vector.maskedload %out[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[MASK]], %{{.*}} : memref<1x2x4x32xi32>
// CHECK:       %[[ACC1:.*]] = vector.maskedload %out[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[MASK]], %{{.*}} : memref<1x2x4x32xi32>
// CHECK:         %[[V:.*]] = vector.maskedload %x[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[MASK]], %{{.*}} : memref<1x1x5x34xi8>
// CHECK:         memref.load %v
// CHECK:         memref.load %v
// CHECK:       vector.maskedstore %out
// CHECK-NEXT:  vector.maskedstore %out
// CHECK-NOT:   vector.scatter

func.func @depthwise(%x: memref<1x8x3x3xi8>, %out: memref<1x8x2x2xi32>) {
  %d = memref.get_global @d : memref<8x1x2x2xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %d : memref<1x8x3x3xi8>, memref<8x1x2x2xi8>) outs(%out : memref<1x8x2x2xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @depthwise
// CHECK:       %[[X:.*]] = memref.collapse_shape %x {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x8x3x3xi8> into memref<72xi8>
// CHECK-NEXT:  %[[D:.*]] = memref.get_global @d_1230 : memref<1x2x2x8xi8>
// CHECK-NEXT:  %[[OUT:.*]] = memref.collapse_shape %out {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x8x2x2xi32> into memref<32xi32>
// CHECK:         %[[ACC0:.*]] = vector.gather %[[OUT]]
// CHECK-NEXT:    %[[ACC1:.*]] = vector.gather %[[OUT]]
// CHECK-NOT:     vector.gather %[[OUT]]
// CHECK:         %[[NINE:.*]] = arith.constant 9 : index
// CHECK-NEXT:    %[[SPLAT:.*]] = vector.broadcast %[[NINE]] : index to vector<[16]xindex>
// CHECK-NEXT:    %[[STEP:.*]] = vector.step : vector<[16]xindex>
// CHECK-NEXT:    %[[LANES:.*]] = arith.muli %[[STEP]], %[[SPLAT]] : vector<[16]xindex>
// CHECK-NEXT:    %[[XU:.*]] = llvm.mlir.poison : vector<[16]xi8>
// CHECK-NEXT:    %[[DU:.*]] = llvm.mlir.poison : vector<[16]xi8>
// CHECK:         scf.for {{.*}} iter_args(%[[A0:.*]] = %[[ACC0]], %[[A1:.*]] = %[[ACC1]])
// CHECK-NOT:     scf.for
// CHECK:           %[[DV:.*]] = vector.maskedload %[[D]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %[[DU]] : memref<1x2x2x8xi8>
// CHECK:           %[[XV:.*]] = vector.gather %[[X]][%{{.*}}] [%[[LANES]]], %{{.*}}, %[[XU]] : memref<72xi8>
// CHECK-NEXT:      %[[XW:.*]] = arith.extsi %[[XV]] : vector<[16]xi8> to vector<[16]xi32>
// CHECK-NEXT:      %[[DW:.*]] = arith.extsi %[[DV]] : vector<[16]xi8> to vector<[16]xi32>
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[XW]], %[[DW]] : vector<[16]xi32>
// CHECK-NEXT:      %[[S0:.*]] = arith.addi %[[A0]], %[[P]] : vector<[16]xi32>
// CHECK-NOT:       vector.maskedload
// CHECK:           %[[XV1:.*]] = vector.gather %[[X]][%{{.*}}] [%[[LANES]]], %{{.*}}, %[[XU]] : memref<72xi8>
// CHECK-NEXT:      %[[XW1:.*]] = arith.extsi %[[XV1]] : vector<[16]xi8> to vector<[16]xi32>
// CHECK-NEXT:      %[[DW1:.*]] = arith.extsi %[[DV]] : vector<[16]xi8> to vector<[16]xi32>
// CHECK-NEXT:      %[[P1:.*]] = arith.muli %[[XW1]], %[[DW1]] : vector<[16]xi32>
// CHECK-NEXT:      %[[S1:.*]] = arith.addi %[[A1]], %[[P1]] : vector<[16]xi32>
// CHECK:           %[[DV2:.*]] = vector.maskedload %[[D]]
// CHECK:           vector.gather %[[X]]
// CHECK:           arith.addi %[[S0]], %{{.*}} : vector<[16]xi32>
// CHECK:           vector.gather %[[X]]
// CHECK:           arith.addi %[[S1]], %{{.*}} : vector<[16]xi32>
// CHECK-NEXT:      scf.yield
// CHECK:         vector.scatter %[[OUT]]
// CHECK-NEXT:    vector.scatter %[[OUT]]
// CHECK-NOT:     memref.load

func.func @average_pool(%x: memref<1x8x3x3xi8>, %window: memref<3x3xi8>, %out: memref<1x8x1x1xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 3 + d4, d3 * 3 + d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %window : memref<1x8x3x3xi8>, memref<3x3xi8>) outs(%out : memref<1x8x1x1xi32>) {
  ^bb0(%a: i8, %w: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %s = arith.addi %acc, %a32 : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @average_pool
// CHECK:       %[[X:.*]] = memref.collapse_shape %x {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x8x3x3xi8> into memref<72xi8>
// CHECK:         %[[ACC:.*]] = vector.maskedload %out[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : memref<1x8x1x1xi32>
// CHECK:         %[[NINE:.*]] = arith.constant 9 : index
// CHECK-NEXT:    %[[SPLAT:.*]] = vector.broadcast %[[NINE]] : index to vector<[16]xindex>
// CHECK-NEXT:    %[[STEP:.*]] = vector.step : vector<[16]xindex>
// CHECK-NEXT:    %[[LANES:.*]] = arith.muli %[[STEP]], %[[SPLAT]] : vector<[16]xindex>
// CHECK-NEXT:    %[[XU:.*]] = llvm.mlir.poison : vector<[16]xi8>
// CHECK-NOT:     scf.for
// CHECK:         %[[XV:.*]] = vector.gather %[[X]][%{{.*}}] [%[[LANES]]], %{{.*}}, %[[XU]] : memref<72xi8>
// CHECK:         %[[XW:.*]] = arith.extsi %[[XV]] : vector<[16]xi8> to vector<[16]xi32>
// CHECK-NEXT:    %[[S:.*]] = arith.addi %{{.*}}, %[[XW]] : vector<[16]xi32>
// CHECK-COUNT-8: vector.gather %[[X]]
// CHECK-NOT:     vector.gather %[[X]]
// CHECK:         vector.maskedstore %out

func.func @matmul(%a: memref<4x16xi8>, %b: memref<16x32xi8>, %out: memref<4x32xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x16xi8>, memref<16x32xi8>) outs(%out : memref<4x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %x32 = arith.extsi %x : i8 to i32
    %y32 = arith.extsi %y : i8 to i32
    %p = arith.muli %x32, %y32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @matmul
// CHECK:         %[[ACC0:.*]] = vector.maskedload %out
// CHECK-NEXT:    %[[ACC1:.*]] = vector.maskedload %out
// CHECK:         %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %{{.*}}, %{{.*}} = scf.for %[[K0:[0-9]+]] = %[[ZERO]] to %[[K]] step %[[EIGHT]] iter_args(%{{.*}} = %[[ACC0]], %{{.*}} = %[[ACC1]])
// CHECK:           vector.maskedload %b[%{{.*}}, %{{.*}}]
// CHECK:           %[[K1:.*]] = arith.addi %[[K0]], %{{.*}} : index
// CHECK:           vector.maskedload %b[%{{.*}}, %{{.*}}]
// CHECK-COUNT-6:   vector.maskedload %b
// CHECK-NOT:       vector.maskedload %b
// CHECK:           scf.yield %{{.*}}, %{{.*}} : vector<[16]xi32>, vector<[16]xi32>
// CHECK:         vector.maskedstore %out
// CHECK-NEXT:    vector.maskedstore %out
