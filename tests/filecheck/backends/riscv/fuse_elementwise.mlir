// RUN: bitfold-opt %s --split-input-file -p bitfold-riscv-fuse-elementwise | filecheck %s

// A residual Add: a's term (b - 1) << 16 and the sum's requantization are computed inside the
// one generic that reads them; the producers' inputs join the consumer's, b read once.

func.func @residual(%a: tensor<1x4x3x3xi32>, %b: tensor<1x4x3x3xi8>) -> tensor<1x4x3x3xi8> {
  %e1 = tensor.empty() : tensor<1x4x3x3xi32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<1x4x3x3xi8>) outs(%e1 : tensor<1x4x3x3xi32>) {
  ^bb0(%x: i8, %o: i32):
    %w = arith.extsi %x : i8 to i32
    %one = arith.constant 1 : i32
    %s = arith.subi %w, %one : i32
    %k = arith.constant 16 : i32
    %r = arith.shli %s, %k : i32
    linalg.yield %r : i32
  } -> tensor<1x4x3x3xi32>
  %e2 = tensor.empty() : tensor<1x4x3x3xi32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %t : tensor<1x4x3x3xi32>, tensor<1x4x3x3xi32>) outs(%e2 : tensor<1x4x3x3xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %s = arith.addi %x, %y : i32
    linalg.yield %s : i32
  } -> tensor<1x4x3x3xi32>
  %e3 = tensor.empty() : tensor<1x4x3x3xi8>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x4x3x3xi32>) outs(%e3 : tensor<1x4x3x3xi8>) {
  ^bb0(%x: i32, %o: i8):
    %k = arith.constant 18 : i32
    %r = arith.shrsi %x, %k : i32
    %t8 = arith.trunci %r : i32 to i8
    linalg.yield %t8 : i8
  } -> tensor<1x4x3x3xi8>
  func.return %q : tensor<1x4x3x3xi8>
}

// CHECK-LABEL: func.func @residual
// CHECK-NEXT:    %e3 = tensor.empty() : tensor<1x4x3x3xi8>
// CHECK-NEXT:    %[[Q:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x4x3x3xi32>, tensor<1x4x3x3xi8>) outs(%e3 : tensor<1x4x3x3xi8>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:      %[[W:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[S:.*]] = arith.subi %[[W]], %[[ONE]] : i32
// CHECK-NEXT:      %[[K:.*]] = arith.constant 16 : i32
// CHECK-NEXT:      %[[T:.*]] = arith.shli %[[S]], %[[K]] : i32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %[[A]], %[[T]] : i32
// CHECK-NEXT:      %[[K2:.*]] = arith.constant 18 : i32
// CHECK-NEXT:      %[[R:.*]] = arith.shrsi %[[SUM]], %[[K2]] : i32
// CHECK-NEXT:      %[[N:.*]] = arith.trunci %[[R]] : i32 to i8
// CHECK-NEXT:      linalg.yield %[[N]] : i8
// CHECK-NEXT:    } -> tensor<1x4x3x3xi8>
// CHECK-NEXT:    func.return %[[Q]] : tensor<1x4x3x3xi8>

// -----

// A producer read by two generics, or read through a broadcast (a gate per channel), stays.

func.func @shared(%x: tensor<4x8xi8>, %g: tensor<4xi8>) -> (tensor<4x8xi32>, tensor<4x8xi32>) {
  %e = tensor.empty() : tensor<4x8xi32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xi8>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%a: i8, %o: i32):
    %v = arith.extsi %a : i8 to i32
    linalg.yield %v : i32
  } -> tensor<4x8xi32>
  %eg = tensor.empty() : tensor<4xi32>
  %gw = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%g : tensor<4xi8>) outs(%eg : tensor<4xi32>) {
  ^bb0(%a: i8, %o: i32):
    %v = arith.extsi %a : i8 to i32
    linalg.yield %v : i32
  } -> tensor<4xi32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w, %gw : tensor<4x8xi32>, tensor<4xi32>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %m = arith.muli %a, %b : i32
    linalg.yield %m : i32
  } -> tensor<4x8xi32>
  func.return %w, %p : tensor<4x8xi32>, tensor<4x8xi32>
}

// CHECK-LABEL: func.func @shared
// CHECK:         %[[W:.*]] = linalg.generic {{.*}} ins(%x : tensor<4x8xi8>)
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%g : tensor<4xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[W]], %[[G]] : tensor<4x8xi32>, tensor<4xi32>)

// -----

// Float bodies stay apart (a float island: the allocator does not spill float values).

func.func @float_chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e1 = tensor.empty() : tensor<8xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%h : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// CHECK-LABEL: func.func @float_chain
// CHECK:         %h = linalg.generic
// CHECK:           arith.mulf
// CHECK:         %r = linalg.generic {{.*}} ins(%h : tensor<8xf32>)
// CHECK:           arith.addf
