// RUN: bitfold-opt %s --split-input-file -p bitfold-riscv-count-thresholds | filecheck %s

// A sign threshold on k - 2 count (count: a zero-filled popcount of 4 words, so 0..128) becomes
// the count compared with a table: with d = +1, k - 2c >= t <=> c < floor((k - t) / 2) + 1
// (k = [100, 7], t = 0: [51, 4]); d = +1 everywhere, so no sign table and `slt`.

func.func @threshold(%x: tensor<2x4xi32>) -> tensor<2xi1> {
  %w = arith.constant dense<[-1, 0, 5, 7]> : tensor<4xi32>
  %zero = arith.constant dense<0> : tensor<i32>
  %e = tensor.empty() : tensor<2xi32>
  %filled = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%zero : tensor<i32>) outs(%e : tensor<2xi32>) {
  ^bb0(%z: i32, %o: i32):
    linalg.yield %z : i32
  } -> tensor<2xi32>
  %count = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<2x4xi32>, tensor<4xi32>) outs(%filled : tensor<2xi32>) {
  ^bb0(%a: i32, %b: i32, %s: i32):
    %v = arith.xori %a, %b : i32
    %n = math.ctpop %v : i32
    %r = arith.addi %s, %n : i32
    linalg.yield %r : i32
  } -> tensor<2xi32>
  %k = arith.constant dense<[100, 7]> : tensor<2xi16>
  %e2 = tensor.empty() : tensor<2xi32>
  %q = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%count, %k : tensor<2xi32>, tensor<2xi16>) outs(%e2 : tensor<2xi32>) {
  ^bb0(%c: i32, %kc: i16, %o: i32):
    %ke = arith.extsi %kc : i16 to i32
    %one = arith.constant 1 : i32
    %twice = arith.shli %c, %one : i32
    %r = arith.subi %ke, %twice : i32
    linalg.yield %r : i32
  } -> tensor<2xi32>
  %t = arith.constant dense<0> : tensor<1xi32>
  %e3 = tensor.empty() : tensor<2xi1>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%q, %t : tensor<2xi32>, tensor<1xi32>) outs(%e3 : tensor<2xi1>) {
  ^bb0(%v: i32, %tc: i32, %o: i1):
    %b = arith.cmpi sge, %v, %tc : i32
    linalg.yield %b : i1
  } -> tensor<2xi1>
  func.return %y : tensor<2xi1>
}

// CHECK:      %count = linalg.generic
// CHECK:      %[[W:.*]] = arith.constant dense<[51, 4]> : tensor<2xi16>
// CHECK-NEXT: %[[Y:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%count, %[[W]] : tensor<2xi32>, tensor<2xi16>) outs(%e3 : tensor<2xi1>) {
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %{{.*}}: i16, %{{.*}}: i1):
// CHECK-NEXT:   %[[BOUND:.*]] = arith.extsi %{{.*}} : i16 to i32
// CHECK-NEXT:   %[[BIT:.*]] = arith.cmpi slt, %{{.*}}, %[[BOUND]] : i32
// CHECK-NEXT:   linalg.yield %[[BIT]] : i1
// CHECK-NEXT: } -> tensor<2xi1>
// CHECK-NOT:  arith.shli
// CHECK-NEXT: func.return %[[Y]] : tensor<2xi1>

// -----

// Mixed signs (d = [1, -1] per output channel): the second channel's weights are complemented
// (~[3, -8, 0, -1] = [-4, 7, -1, 0]: its count becomes 128 - c) and its bound moves by C = 128, so
// one `slt` serves both, no multiply. k = 100, t = 0: channel 0 as above, 51; channel 1,
// -(100 - 2c) >= 0 <=> c >= 50 <=> 128 - c < 79.

func.func @mixed(%x: tensor<2x4xi32>) -> tensor<2x2xi1> {
  %w = arith.constant dense<[[-1, 0, 5, 7], [3, -8, 0, -1]]> : tensor<2x4xi32>
  %zero = arith.constant dense<0> : tensor<i32>
  %e = tensor.empty() : tensor<2x2xi32>
  %filled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%zero : tensor<i32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%z: i32, %o: i32):
    linalg.yield %z : i32
  } -> tensor<2x2xi32>
  %count = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x4xi32>, tensor<2x4xi32>) outs(%filled : tensor<2x2xi32>) {
  ^bb0(%a: i32, %b: i32, %s: i32):
    %v = arith.xori %a, %b : i32
    %n = math.ctpop %v : i32
    %r = arith.addi %s, %n : i32
    linalg.yield %r : i32
  } -> tensor<2x2xi32>
  %e2 = tensor.empty() : tensor<2x2xi32>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%count : tensor<2x2xi32>) outs(%e2 : tensor<2x2xi32>) {
  ^bb0(%c: i32, %o: i32):
    %k = arith.constant 100 : i32
    %one = arith.constant 1 : i32
    %twice = arith.shli %c, %one : i32
    %r = arith.subi %k, %twice : i32
    linalg.yield %r : i32
  } -> tensor<2x2xi32>
  %d = arith.constant dense<[1, -1]> : tensor<2xi32>
  %t = arith.constant dense<0> : tensor<2xi32>
  %e3 = tensor.empty() : tensor<2x2xi1>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %d, %t : tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) outs(%e3 : tensor<2x2xi1>) {
  ^bb0(%v: i32, %dc: i32, %tc: i32, %o: i1):
    %p = arith.muli %v, %dc : i32
    %b = arith.cmpi sge, %p, %tc : i32
    linalg.yield %b : i1
  } -> tensor<2x2xi1>
  func.return %y : tensor<2x2xi1>
}

// CHECK-LABEL: func.func @mixed
// CHECK:       %[[FLIPPED:.*]] = arith.constant dense<{{\[}}[-1, 0, 5, 7], [-4, 7, -1, 0]]> : tensor<2x4xi32>
// CHECK-NEXT:  %count = linalg.generic {{.*}} ins(%x, %[[FLIPPED]] : tensor<2x4xi32>, tensor<2x4xi32>)
// CHECK:       %[[W:.*]] = arith.constant dense<[51, 79]> : tensor<2xi16>
// CHECK-NEXT:  %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%count, %[[W]] : tensor<2x2xi32>, tensor<2xi16>)
// CHECK-NOT:   arith.muli
// CHECK:       arith.cmpi slt
