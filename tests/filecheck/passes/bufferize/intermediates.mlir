// RUN: bitfold-opt %s -p bufferize | filecheck %s

// Intermediates are static buffers (uninitialized globals). %b dies when %c is computed, so %d
// reuses its buffer; the reshape is a view of %c's buffer, read in place; the returned %f
// writes the output argument; tensor.extract is a memref.load.

func.func @chain(%x: tensor<8xi8>) -> tensor<2x4xi8> {
  %e = tensor.empty() : tensor<8xi8>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xi8>) outs(%e : tensor<8xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  } -> tensor<8xi8>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<8xi8>) outs(%e : tensor<8xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  } -> tensor<8xi8>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<8xi8>) outs(%e : tensor<8xi8>) {
  ^bb0(%v: i8, %o: i8):
    %i = linalg.index 0 : index
    %w = tensor.extract %c[%i] : tensor<8xi8>
    linalg.yield %w : i8
  } -> tensor<8xi8>
  %f0 = tensor.expand_shape %d [[0, 1]] output_shape [2, 4] : tensor<8xi8> into tensor<2x4xi8>
  %e2 = tensor.empty() : tensor<2x4xi8>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%f0 : tensor<2x4xi8>) outs(%e2 : tensor<2x4xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  } -> tensor<2x4xi8>
  func.return %f : tensor<2x4xi8>
}

// CHECK:      func.func @chain(%x: memref<8xi8>, %out: memref<2x4xi8>) {
// CHECK-NEXT:   %0 = memref.get_global @__chain_buf0 : memref<8xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%x : memref<8xi8>) outs(%0 : memref<8xi8>)
// CHECK:        %1 = memref.get_global @__chain_buf1 : memref<8xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%0 : memref<8xi8>) outs(%1 : memref<8xi8>)
// CHECK:        %2 = memref.get_global @__chain_buf0 : memref<8xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%1 : memref<8xi8>) outs(%2 : memref<8xi8>)
// CHECK:          %w = memref.load %1[%i] : memref<8xi8>
// CHECK:        %3 = memref.expand_shape %2 {{.*}} output_shape [2, 4] : memref<8xi8> into memref<2x4xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%3 : memref<2x4xi8>) outs(%out : memref<2x4xi8>)
// CHECK:      "memref.global"() <{sym_name = "__chain_buf0", type = memref<8xi8>, initial_value, sym_visibility = "private"}> : () -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "__chain_buf1", type = memref<8xi8>, initial_value, sym_visibility = "private"}> : () -> ()
