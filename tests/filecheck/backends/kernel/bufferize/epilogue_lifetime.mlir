// RUN: bitfold-opt %s -p bufferize | filecheck %s

// A reduction's input lives through the elementwise generic that reads the reduction's result (its
// requantization) only where the workspace does not grow (a code generator may then fuse the two
// into one nest that writes the output while it still reads the input). Here keeping %c alive
// would make the epilogue the peak (%acc 8 + %c 8 + %y 2 bytes against 16 at the reduction): %c
// dies at the reduction as before and %y takes its bytes (offset 0).

func.func @grows(%x: tensor<2x4xi8>) -> tensor<2xi8> {
  %e8 = tensor.empty() : tensor<2x4xi8>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xi8>) outs(%e8 : tensor<2x4xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  } -> tensor<2x4xi8>
  %zero = arith.constant dense<0> : tensor<2xi32>
  %acc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<2x4xi8>) outs(%zero : tensor<2xi32>) {
  ^bb0(%v: i8, %s: i32):
    %w = arith.extsi %v : i8 to i32
    %a = arith.addi %s, %w : i32
    linalg.yield %a : i32
  } -> tensor<2xi32>
  %e2 = tensor.empty() : tensor<2xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc : tensor<2xi32>) outs(%e2 : tensor<2xi8>) {
  ^bb0(%v: i32, %o: i8):
    %n = arith.trunci %v : i32 to i8
    linalg.yield %n : i8
  } -> tensor<2xi8>
  %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y : tensor<2xi8>) outs(%e2 : tensor<2xi8>) {
  ^bb0(%v: i8, %o: i8):
    %n = arith.addi %v, %v : i8
    linalg.yield %n : i8
  } -> tensor<2xi8>
  func.return %z : tensor<2xi8>
}

// CHECK-LABEL: func.func @grows
// CHECK-SAME:    %workspace: memref<16xi8> {bitfold.workspace}
// CHECK:         %offset = arith.constant 0 : index
// CHECK-NEXT:    %buffer = memref.view %workspace[%offset][] : memref<16xi8> to memref<2x4xi8>
// CHECK:         %offset_2 = arith.constant 0 : index
// CHECK-NEXT:    %buffer_2 = memref.view %workspace[%offset_2][] : memref<16xi8> to memref<2xi8>
