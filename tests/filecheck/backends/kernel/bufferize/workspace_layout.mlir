// RUN: bitfold-opt %s -p bufferize | filecheck %s

// Buffers of different element types share workspace bytes when their lifetimes do not
// overlap. %a (8 x i32 = 32 bytes) lives while %b is computed; %b (8 bytes) while %c is; %c
// (8 x i16 = 16 bytes) lives after %a is dead, so it takes %a's bytes at offset 0 and %b goes
// above %a. The workspace is 40 bytes, the most ever live at once (%a and %b).

func.func @widths(%x: tensor<8xi8>) -> tensor<8xi8> {
  %e32 = tensor.empty() : tensor<8xi32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xi8>) outs(%e32 : tensor<8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %w = arith.extsi %v : i8 to i32
    linalg.yield %w : i32
  } -> tensor<8xi32>
  %e8 = tensor.empty() : tensor<8xi8>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xi32>) outs(%e8 : tensor<8xi8>) {
  ^bb0(%v: i32, %o: i8):
    %n = arith.trunci %v : i32 to i8
    linalg.yield %n : i8
  } -> tensor<8xi8>
  %e16 = tensor.empty() : tensor<8xi16>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<8xi8>) outs(%e16 : tensor<8xi16>) {
  ^bb0(%v: i8, %o: i16):
    %w = arith.extsi %v : i8 to i16
    linalg.yield %w : i16
  } -> tensor<8xi16>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<8xi16>) outs(%e8 : tensor<8xi8>) {
  ^bb0(%v: i16, %o: i8):
    %n = arith.trunci %v : i16 to i8
    linalg.yield %n : i8
  } -> tensor<8xi8>
  func.return %d : tensor<8xi8>
}

// CHECK:      func.func @widths(%x: memref<8xi8>, %out: memref<8xi8>, %workspace: memref<40xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 40 : i64} {
// CHECK-NEXT:   %offset = arith.constant 0 : index
// CHECK-NEXT:   %buffer = memref.view %workspace[%offset][] : memref<40xi8> to memref<8xi32>
// CHECK:        %offset_1 = arith.constant 32 : index
// CHECK-NEXT:   %buffer_1 = memref.view %workspace[%offset_1][] : memref<40xi8> to memref<8xi8>
// CHECK:        %offset_2 = arith.constant 0 : index
// CHECK-NEXT:   %buffer_2 = memref.view %workspace[%offset_2][] : memref<40xi8> to memref<8xi16>
// CHECK:        linalg.generic {{.*}} ins(%buffer_2 : memref<8xi16>) outs(%out : memref<8xi8>)
