// RUN: bitfold-opt %s -p bufferize | filecheck %s

// A fill then an accumulation into the returned tensor: both write the output argument, the
// weights become a constant global, the function returns nothing. No intermediate: the
// workspace argument is still there, of 0 bytes.

func.func @mm(%a: tensor<2x3xi8>) -> tensor<2x2xi32> {
  %w = arith.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %e = tensor.empty() : tensor<2x2xi32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x2xi32>) {
  ^bb0(%o: i32):
    %c0 = arith.constant 0 : i32
    linalg.yield %c0 : i32
  } -> tensor<2x2xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<2x3xi8>, tensor<3x2xi8>) outs(%z : tensor<2x2xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  func.return %r : tensor<2x2xi32>
}

// CHECK:      func.func @mm(%a: memref<2x3xi8>, %out: memref<2x2xi32>, %workspace: memref<0xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 0 : i64} {
// CHECK-NEXT:   %0 = memref.get_global @__constant_0 : memref<3x2xi8>
// CHECK-NEXT:   linalg.generic {{.*}} outs(%out : memref<2x2xi32>) {
// CHECK:        linalg.generic {{.*}} ins(%a, %0 : memref<2x3xi8>, memref<3x2xi8>) outs(%out : memref<2x2xi32>) {
// CHECK:        func.return
// CHECK-NEXT: }
// CHECK-NEXT: "memref.global"() <{sym_name = "__constant_0", type = memref<3x2xi8>, initial_value = dense<{{.*}}> : tensor<3x2xi8>, sym_visibility = "private", constant}> : () -> ()
// CHECK-NOT:  memref.global
