// RUN: bitfold-opt %s -p bitfold-llvm-vector-contraction --disable-verify | filecheck %s
// RUN: bitfold-opt %s -p "bitfold-llvm-vector-contraction{payoff=0.0}" --disable-verify | filecheck %s --check-prefix=ALL

// The reduction loop is unrolled only where the loop instructions it saves pay for the code it adds
// (contraction_plan.unroll_factors, `payoff` executed instructions a byte): a 640 -> 128 layer (4
// strips of 640 steps at VLEN 128) runs its reduction as a loop stepping by 8, eight steps a body; an
// 16 -> 8 layer (one strip of 16 steps) keeps one step a body. With payoff 0 every reduction is
// unrolled to its budget (the 16 steps by 8).

"memref.global"() <{sym_name = "wide", type = memref<128x640xi8>, initial_value = dense<3> : tensor<128x640xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "narrow", type = memref<8x16xi8>, initial_value = dense<3> : tensor<8x16xi8>, sym_visibility = "private", constant}> : () -> ()

func.func @wide_layer(%x: memref<1x640xi8>, %out: memref<1x128xi32>) {
  %w = memref.get_global @wide : memref<128x640xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x640xi8>, memref<128x640xi8>) outs(%out : memref<1x128xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

func.func @narrow_layer(%x: memref<1x16xi8>, %out: memref<1x8xi32>) {
  %w = memref.get_global @narrow : memref<8x16xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x16xi8>, memref<8x16xi8>) outs(%out : memref<1x8xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @wide_layer
// CHECK:         llvm.mlir.poison : vector<[16]xi8>
// CHECK-NEXT:    %[[K:.*]] = arith.constant 640 : index
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK:         %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[K]] step %[[EIGHT]] iter_args(%{{.*}} = %{{.*}}) -> (vector<[16]xi32>) {
// CHECK-COUNT-8:   vector.maskedload %{{.*}} : memref<640x128xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK-NOT:       vector.maskedload
// CHECK:           scf.yield

// CHECK-LABEL: func.func @narrow_layer
// CHECK:         llvm.mlir.poison : vector<[16]xi8>
// CHECK-NEXT:    %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[K]] step %[[ONE]] iter_args(%{{.*}} = %{{.*}}) -> (vector<[16]xi32>) {
// CHECK-COUNT-1:   vector.maskedload %{{.*}} : memref<16x8xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK-NOT:       vector.maskedload
// CHECK:           scf.yield

// ALL-LABEL: func.func @narrow_layer
// ALL:         llvm.mlir.poison : vector<[16]xi8>
// ALL-NEXT:    arith.constant 16 : index
// ALL-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// ALL:         %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[EIGHT]] iter_args(%{{.*}} = %{{.*}}) -> (vector<[16]xi32>) {
// ALL-COUNT-8:   vector.maskedload %{{.*}} : memref<16x8xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// ALL-NOT:       vector.maskedload
// ALL:           scf.yield
