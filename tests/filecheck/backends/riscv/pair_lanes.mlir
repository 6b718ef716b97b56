// RUN: bitfold-opt %s -p bitfold-riscv-pair-lanes | filecheck %s

// RV64: an i32 contraction by constant weights accumulates output channels 2p and 2p + 1 in one
// i64 lane pair. The weights and the bias are packed at compile time, w[2p] + 2^32 w[2p + 1]
// (1 + 2^32 * -4 = -17179869183), and two elementwise generics split the lanes once per output:
// trunci(S) into the even channels, trunci((S + 2^31) >> 32) into the odd ones.

func.func @pairs(%a: tensor<2x3xi8>) -> tensor<2x4xi32> {
  %w = arith.constant dense<[[1, -2, 3], [-4, 5, -6], [7, -8, 9], [127, -128, 0]]> : tensor<4x3xi8>
  %bias = arith.constant dense<[10, -20, 30, -40]> : tensor<4xi32>
  %e = tensor.empty() : tensor<2x4xi32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<4xi32>) outs(%e : tensor<2x4xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  } -> tensor<2x4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<2x3xi8>, tensor<4x3xi8>) outs(%init : tensor<2x4xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x4xi32>
  func.return %r : tensor<2x4xi32>
}

// CHECK-LABEL: func.func @pairs
// CHECK:       arith.constant dense<{{\[}}[-17179869183, 21474836478, -25769803773], [545460846599, -549755813896, 9]]> : tensor<2x3xi64>
// CHECK-NEXT:  arith.constant dense<[-85899345910, -171798691810]> : tensor<2xi64>
// CHECK:       ins(%{{.*}} : tensor<2xi64>) outs(%{{.*}} : tensor<2x2xi64>)
// CHECK:       ins(%a, %{{.*}} : tensor<2x3xi8>, tensor<2x3xi64>) outs(%{{.*}} : tensor<2x2xi64>)
// CHECK:         arith.extsi %{{.*}} : i8 to i64
// CHECK-NEXT:    arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    arith.addi %{{.*}}, %{{.*}} : i64
// CHECK:       affine_map<(d0, d1) -> (d0, (d1 * 2))>
// CHECK:         arith.trunci %{{.*}} : i64 to i32
// CHECK:       affine_map<(d0, d1) -> (d0, ((d1 * 2) + 1))>
// CHECK:         arith.constant 2147483648 : i64
// CHECK-NEXT:    arith.constant 32 : i64
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    arith.shrsi
// CHECK-NEXT:    arith.trunci %{{.*}} : i64 to i32

// A bias of 2^31 - 101 leaves no room in channel 3's lane for 128 * (127 + 128 + 0): the lane
// bound fails, the contraction stays in i32.

func.func @no_room(%a: tensor<2x3xi8>) -> tensor<2x4xi32> {
  %w = arith.constant dense<[[1, -2, 3], [-4, 5, -6], [7, -8, 9], [127, -128, 0]]> : tensor<4x3xi8>
  %bias = arith.constant dense<[10, -20, 30, 2147483547]> : tensor<4xi32>
  %e = tensor.empty() : tensor<2x4xi32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<4xi32>) outs(%e : tensor<2x4xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  } -> tensor<2x4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<2x3xi8>, tensor<4x3xi8>) outs(%init : tensor<2x4xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x4xi32>
  func.return %r : tensor<2x4xi32>
}

// CHECK-LABEL: func.func @no_room
// CHECK-NOT:   i64
// CHECK:       func.return
