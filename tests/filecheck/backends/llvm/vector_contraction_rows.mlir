// RUN: bitfold-opt %s -p "bitfold-llvm-vector-contraction{payoff=0.0}" --disable-verify | filecheck %s

// LMUL from register pressure (backends/llvm/contraction_plan.py): a convolution of a narrow image
// (4 x 5 output pixels, 16 output channels, a 2 x 4 kernel) vectorized over its output channels. At
// LMUL 8 (vector<[16]xi32>) two rows fit the 32 vector registers, but no bound of the pixels is even,
// so no rows would share a load; at LMUL 4 (vector<[8]xi32>: 16 lanes a strip at VLEN 128, the 16
// channels in one) six rows fit, and the output row's 5 pixels are one block of 5 rows: the row loop
// steps by 5, five accumulators gathered, each weight vector loaded once a tap for the five rows'
// scalar image loads, five accumulators scattered.

"memref.global"() <{sym_name = "w", type = memref<16x1x2x4xi8>, initial_value = dense<1> : tensor<16x1x2x4xi8>, sym_visibility = "private", constant}> : () -> ()

func.func @odd_rows(%x: memref<1x1x5x8xi8>, %out: memref<1x16x4x5xi32>) {
  %w = memref.get_global @w : memref<16x1x2x4xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x1x5x8xi8>, memref<16x1x2x4xi8>) outs(%out : memref<1x16x4x5xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @odd_rows
// CHECK:       %[[FIVE:.*]] = arith.constant 5 : index
// CHECK-NEXT:  %[[STEP:.*]] = arith.constant 5 : index
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  scf.for %[[W:.*]] = %[[ZERO]] to %[[FIVE]] step %[[STEP]] {
// CHECK:         %[[LANES:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %{{.*}} = arith.muli %{{.*}}, %[[LANES]] : index
// CHECK:         %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<[8]xi1>
// CHECK-COUNT-5: vector.gather %{{.*}}, %[[MASK]], %{{.*}} : memref<320xi32>, vector<[8]xindex>, vector<[8]xi1>, vector<[8]xi32> into vector<[8]xi32>
// CHECK-NOT:     vector.gather
// CHECK:         vector.maskedload %{{.*}}, %[[MASK]], %{{.*}} : memref<1x2x4x16xi8>, vector<[8]xi1>, vector<[8]xi8> into vector<[8]xi8>
// CHECK-COUNT-5: memref.load %x
// CHECK-NOT:     memref.load %x
// CHECK:         vector.maskedload
// CHECK-COUNT-5: vector.scatter %{{.*}}, %[[MASK]], %{{.*}} : memref<320xi32>, vector<[8]xindex>, vector<[8]xi1>, vector<[8]xi32>
// CHECK-NOT:     vector.scatter
