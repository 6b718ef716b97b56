// RUN: bitfold-opt %s -p bitfold-llvm-vector-contraction --disable-verify | filecheck %s

// Two contractions re-laying out the same constant the same way (an LSTM's weights, read at every
// time step) share one re-laid-out global: a second global of the same name would be a redefinition.

"memref.global"() <{sym_name = "w", type = memref<8x1x2x2xi8>, initial_value = dense<[[[[1, 2], [3, 4]]], [[[5, 6], [7, 8]]], [[[9, 10], [11, 12]]], [[[13, 14], [15, 16]]], [[[17, 18], [19, 20]]], [[[21, 22], [23, 24]]], [[[25, 26], [27, 28]]], [[[29, 30], [31, 32]]]]> : tensor<8x1x2x2xi8>, sym_visibility = "private", constant}> : () -> ()

func.func @first(%x: memref<1x1x3x3xi8>, %out: memref<1x8x2x2xi32>) {
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

func.func @second(%x: memref<1x1x3x3xi8>, %out: memref<1x8x2x2xi32>) {
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

// CHECK:           "memref.global"() <{sym_name = "w", {{.*}}
// CHECK-NEXT:      "memref.global"() <{sym_name = "w_1230", {{.*}}
// CHECK-NOT:       sym_name = "w_1230"
// CHECK-LABEL:     func.func @first
// CHECK:           memref.get_global @w_1230 : memref<1x2x2x8xi8>
// CHECK-LABEL:     func.func @second
// CHECK:           memref.get_global @w_1230 : memref<1x2x2x8xi8>
