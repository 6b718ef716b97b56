// RUN: bitfold-opt %s --split-input-file -p bitfold-riscv-tabulate-elementwise | filecheck %s

// A HardSwish-like chain of one byte tensor x (256 elements): h = clamp(x + 3, 0, 6), p = x h,
// q = clamp((p >> 2) - 5, -128, 127) as i8. Three generics become one lookup of x's bits in a
// table of q; the table below is that formula evaluated in numpy for the bytes 0..255 (as i8).

func.func @hard_swish(%x: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %three = arith.constant dense<3> : tensor<4xi32>
  %e1 = tensor.empty() : tensor<1x4x8x8xi32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %three : tensor<1x4x8x8xi8>, tensor<4xi32>) outs(%e1 : tensor<1x4x8x8xi32>) {
  ^bb0(%a: i8, %c: i32, %o: i32):
    %w = arith.extsi %a : i8 to i32
    %s = arith.addi %w, %c : i32
    %zero = arith.constant 0 : i32
    %six = arith.constant 6 : i32
    %lo = arith.maxsi %s, %zero : i32
    %hi = arith.minsi %lo, %six : i32
    linalg.yield %hi : i32
  } -> tensor<1x4x8x8xi32>
  %e2 = tensor.empty() : tensor<1x4x8x8xi32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %h : tensor<1x4x8x8xi8>, tensor<1x4x8x8xi32>) outs(%e2 : tensor<1x4x8x8xi32>) {
  ^bb0(%a: i8, %b: i32, %o: i32):
    %w = arith.extsi %a : i8 to i32
    %m = arith.muli %w, %b : i32
    linalg.yield %m : i32
  } -> tensor<1x4x8x8xi32>
  %e3 = tensor.empty() : tensor<1x4x8x8xi8>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x4x8x8xi32>) outs(%e3 : tensor<1x4x8x8xi8>) {
  ^bb0(%a: i32, %o: i8):
    %two = arith.constant 2 : i32
    %five = arith.constant 5 : i32
    %min = arith.constant -128 : i32
    %max = arith.constant 127 : i32
    %r = arith.shrsi %a, %two : i32
    %z = arith.subi %r, %five : i32
    %lo = arith.maxsi %z, %min : i32
    %hi = arith.minsi %lo, %max : i32
    %t = arith.trunci %hi : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x8x8xi8>
  func.return %q : tensor<1x4x8x8xi8>
}

// CHECK-LABEL: func.func @hard_swish
// CHECK-NEXT:    %{{.*}} = tensor.empty() : tensor<1x4x8x8xi8>
// CHECK-NEXT:    %[[T:.*]] = arith.constant dense<"0xFBFCFDFF0102040507080A0B0D0E101113141617191A1C1D1F202223252628292B2C2E2F3132343537383A3B3D3E404143444647494A4C4D4F505253555658595B5C5E5F6162646567686A6B6D6E707173747677797A7C7D7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7FFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFBFAFA"> : tensor<256xi8>
// CHECK-NEXT:    %[[Q:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x8x8xi8>)
// CHECK-NEXT:    ^bb0(%[[B:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:      %[[I:.*]] = arith.extui %[[B]] : i8 to i32
// CHECK-NEXT:      %[[J:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:      %[[E:.*]] = tensor.extract %[[T]][%[[J]]] : tensor<256xi8>
// CHECK-NEXT:      linalg.yield %[[E]] : i8
// CHECK-NEXT:    } -> tensor<1x4x8x8xi8>
// CHECK-NEXT:    func.return %[[Q]] : tensor<1x4x8x8xi8>

// -----

// A sum of two byte tensors is a function of two: left alone.

func.func @two_sources(%x: tensor<256xi8>, %y: tensor<256xi8>) -> tensor<256xi8> {
  %e = tensor.empty() : tensor<256xi8>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<256xi8>, tensor<256xi8>) outs(%e : tensor<256xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %w = arith.addi %a, %b : i8
    %v = arith.muli %w, %w : i8
    %u = arith.subi %v, %a : i8
    linalg.yield %u : i8
  } -> tensor<256xi8>
  func.return %s : tensor<256xi8>
}

// CHECK-LABEL: func.func @two_sources
// CHECK-NOT:     tensor.extract
// CHECK:         arith.addi

// -----

// A requantization of a byte tensor over a channel table of different values is a function of
// x and the channel: left alone.

func.func @per_channel(%x: tensor<4x64xi8>) -> tensor<4x64xi8> {
  %k = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %e = tensor.empty() : tensor<4x64xi8>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %k : tensor<4x64xi8>, tensor<4xi8>) outs(%e : tensor<4x64xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %w = arith.addi %a, %b : i8
    %v = arith.muli %w, %w : i8
    %u = arith.subi %v, %a : i8
    linalg.yield %u : i8
  } -> tensor<4x64xi8>
  func.return %s : tensor<4x64xi8>
}

// CHECK-LABEL: func.func @per_channel
// CHECK-NOT:     tensor.extract
// CHECK:         arith.addi
