// RUN: bitfold-opt %s -p bitfold-riscv-wide-binary-words | filecheck %s
// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv64im_zbb symbol=xnor}' | filecheck %s --check-prefix=ASM

// RV64: an XNOR-popcount contraction on 32-bit words (4 words a row) counts pairs of words joined
// into 64-bit ones. The weights are joined at compile time, (w[2q] mod 2^32) + 2^32 w[2q + 1]
// (-1 mod 2^32 = 4294967295, 2^32 * 1 + 4294967295 = 8589934591; 2^32 * -2147483648 + 7 =
// -9223372036854775801), the activations once by a generic, extui(x[2q]) | extui(x[2q + 1]) << 32;
// the count of a 64-bit word is truncated to i32 and summed.

func.func @xnor(%x: tensor<2x4xi32>) -> tensor<2x3xi32> {
  %w = arith.constant dense<[[-1, 1, 7, -2147483648], [0, 0, 0, 0], [5, -5, 2147483647, -1]]> : tensor<3x4xi32>
  %e = tensor.empty() : tensor<2x3xi32>
  %zero = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x3xi32>) {
  ^bb0(%o: i32):
    %c0 = arith.constant 0 : i32
    linalg.yield %c0 : i32
  } -> tensor<2x3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x4xi32>, tensor<3x4xi32>) outs(%zero : tensor<2x3xi32>) {
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %d = arith.xori %a, %b : i32
    %n = math.ctpop %d : i32
    %s = arith.addi %acc, %n : i32
    linalg.yield %s : i32
  } -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @xnor
// CHECK:       affine_map<(d0, d1) -> (d0, (d1 * 2))>, affine_map<(d0, d1) -> (d0, ((d1 * 2) + 1))>
// CHECK-SAME:  ins(%x, %x : tensor<2x4xi32>, tensor<2x4xi32>) outs(%{{.*}} : tensor<2x2xi64>)
// CHECK:         arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:    arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:    arith.constant 32 : i64
// CHECK-NEXT:    arith.shli
// CHECK-NEXT:    arith.ori
// CHECK:       arith.constant dense<{{\[}}[8589934591, -9223372036854775801], [0, 0], [-21474836475, -2147483649]]> : tensor<3x2xi64>
// CHECK:       ins(%{{.*}}, %{{.*}} : tensor<2x2xi64>, tensor<3x2xi64>) outs(%{{.*}} : tensor<2x3xi32>)
// CHECK-NEXT:  ^{{.*}}(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32):
// CHECK-NEXT:    arith.xori %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    math.ctpop %{{.*}} : i64
// CHECK-NEXT:    arith.trunci %{{.*}} : i64 to i32
// CHECK-NEXT:    arith.addi %{{.*}}, %{{.*}} : i32

// The nest: a doubleword of activations and one of weights, xor, the 64-bit cpop, a word add.
// ASM-LABEL: xnor:
// ASM:       xor [[D:[a-z0-9]+]], {{[a-z0-9]+}}, {{[a-z0-9]+}}
// ASM-NEXT:  cpop [[N:[a-z0-9]+]], [[D]]
// ASM-NEXT:  addw {{[a-z0-9]+}}, {{[a-z0-9]+}}, [[N]]
// ASM-NOT:   cpopw
// ASM:       ret
