// RUN: bitfold-opt %s -p bufferize | filecheck %s

// A function that returns its argument (a Q -> DQ model with integer-io): the output argument
// gets the result's memref type and a copy of the input.

func.func @identity(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  func.return %x : tensor<2x3xi8>
}

// CHECK:      func.func @identity(%x: memref<2x3xi8>, %out: memref<2x3xi8>, %workspace: memref<0xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 0 : i64} {
// CHECK-NEXT:   linalg.generic {{.*}} ins(%x : memref<2x3xi8>) outs(%out : memref<2x3xi8>) {
// CHECK:        func.return
