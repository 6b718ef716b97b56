// RUN: bitfold-opt %s -p bufferize | filecheck %s

// Intermediates are views of the workspace argument at constant byte offsets. %b (offset 0)
// dies when %c (offset 8) is computed, so %d takes %b's bytes again; the reshape is a view of
// %d's buffer, read in place; the returned %f writes the output argument; tensor.extract is a
// memref.load. No global: 16 bytes of workspace.

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

// CHECK:      func.func @chain(%x: memref<8xi8>, %out: memref<2x4xi8>, %workspace: memref<16xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 16 : i64} {
// CHECK-NEXT:   %offset = arith.constant 0 : index
// CHECK-NEXT:   %buffer = memref.view %workspace[%offset][] : memref<16xi8> to memref<8xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%x : memref<8xi8>) outs(%buffer : memref<8xi8>)
// CHECK:        %offset_1 = arith.constant 8 : index
// CHECK-NEXT:   %buffer_1 = memref.view %workspace[%offset_1][] : memref<16xi8> to memref<8xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%buffer : memref<8xi8>) outs(%buffer_1 : memref<8xi8>)
// CHECK:        %offset_2 = arith.constant 0 : index
// CHECK-NEXT:   %buffer_2 = memref.view %workspace[%offset_2][] : memref<16xi8> to memref<8xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%buffer_1 : memref<8xi8>) outs(%buffer_2 : memref<8xi8>)
// CHECK:          %w = memref.load %buffer_1[%i] : memref<8xi8>
// CHECK:        %0 = memref.expand_shape %buffer_2 {{.*}} output_shape [2, 4] : memref<8xi8> into memref<2x4xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%0 : memref<2x4xi8>) outs(%out : memref<2x4xi8>)
// CHECK:        func.return
// CHECK-NOT:  memref.global
