// RUN: bitfold-opt %s -p 'bitfold-riscv-narrow-lanes{xlen=32}' --split-input-file | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-narrow-lanes{xlen=64}' --split-input-file | filecheck %s --check-prefix=RV64
// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32im symbol=narrow}' --split-input-file | filecheck %s --check-prefix=ASM

// i4 activations by 4-bit weights: every lane sum lies in [-8 * 36, 8 * 36] (9 bits and a sign
// bit), so RV32 packs two 16-bit lanes a word (channels 2p, 2p + 1: w[2p] + 2^16 w[2p + 1], e.g.
// 1 + 65536 * -8 = -524287) and RV64 four a doubleword. The activations are widened to bytes once
// (an i4 load would re-extend each element), the packed sums start at the offset 2^15 of the lower
// lanes (on RV64 2^15 + 2^31 + 2^47 = 140739635871744), and one generic a lane adds
// (S & 0xFFFF) - 2^15, or the top lane S >>s 16, to the bias.

func.func @narrow(%a: tensor<3x6xi4>) -> tensor<3x4xi32> {
  %w = arith.constant dense<[[1, -2, 3, -4, 5, -6], [-8, 7, -8, 7, -8, 7], [0, 1, 2, 3, 4, 5], [7, 7, 7, -8, -8, -8]]> : tensor<4x6xi8>
  %bias = arith.constant dense<[10, -20, 30, -40]> : tensor<4xi32>
  %e = tensor.empty() : tensor<3x4xi32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<4xi32>) outs(%e : tensor<3x4xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  } -> tensor<3x4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<3x6xi4>, tensor<4x6xi8>) outs(%init : tensor<3x4xi32>) {
  ^bb0(%x: i4, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i4 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<3x4xi32>
  func.return %r : tensor<3x4xi32>
}

// CHECK-LABEL: func.func @narrow
// CHECK:       linalg.generic {{.*}} ins(%a : tensor<3x6xi4>) outs(%{{.*}} : tensor<3x6xi8>)
// CHECK-NEXT:  ^{{.*}}(%{{.*}}: i4, %{{.*}}: i8):
// CHECK-NEXT:    arith.extsi %{{.*}} : i4 to i8
// CHECK:       arith.constant dense<{{\[}}[-524287, 458750, -524285, 458748, -524283, 458746], [458752, 458753, 458754, -524285, -524284, -524283]]> : tensor<2x6xi32>
// CHECK:         arith.constant 32768 : i32
// CHECK:       ins(%{{.*}}, %{{.*}} : tensor<3x6xi8>, tensor<2x6xi32>) outs(%{{.*}} : tensor<3x2xi32>)
// CHECK-NEXT:  ^{{.*}}(%{{.*}}: i8, %{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT:    arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT:    arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:       affine_map<(d0, d1) -> (d0, (d1 * 2))>
// CHECK:         arith.constant 65535 : i32
// CHECK-NEXT:    arith.andi
// CHECK-NEXT:    arith.constant -32768 : i32
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    arith.addi
// CHECK:       affine_map<(d0, d1) -> (d0, ((d1 * 2) + 1))>
// CHECK:         arith.constant 16 : i32
// CHECK-NEXT:    arith.shrsi
// CHECK-NEXT:    arith.addi
// CHECK-NOT:   linalg.generic
// CHECK:       func.return

// RV64-LABEL: func.func @narrow
// RV64:       tensor<1x6xi64>
// RV64:         arith.constant 140739635871744 : i64
// RV64:       outs(%{{.*}} : tensor<3x1xi64>)
// RV64:       affine_map<(d0, d1) -> (d0, (d1 * 4))>
// RV64:       affine_map<(d0, d1) -> (d0, ((d1 * 4) + 1))>
// RV64:         arith.constant 16 : i64
// RV64-NEXT:    arith.shrsi
// RV64-NEXT:    arith.trunci %{{.*}} : i64 to i32
// RV64:       affine_map<(d0, d1) -> (d0, ((d1 * 4) + 3))>
// RV64:         arith.constant 48 : i64
// RV64-NEXT:    arith.shrsi
// RV64-NEXT:    arith.trunci
// RV64-NEXT:    arith.addi
// RV64-NEXT:    linalg.yield

// The packed nest: a byte activation (lb, no re-extension) feeds one mul and one add per word of
// two lanes, four MACs here; the lanes are split once per output.
// ASM-LABEL: narrow:
// ASM:       mul [[P:[a-z0-9]+]], [[X:[a-z0-9]+]], {{[a-z0-9]+}}
// ASM-NEXT:  add [[A:[a-z0-9]+]], [[A]], [[P]]
// ASM-NEXT:  mul [[Q:[a-z0-9]+]], [[X]], {{[a-z0-9]+}}
// ASM-NEXT:  add [[B:[a-z0-9]+]], [[B]], [[Q]]
// ASM-NEXT:  lb [[Y:[a-z0-9]+]], 1({{[a-z0-9]+}})
// ASM-NEXT:  mul {{[a-z0-9]+}}, [[Y]], {{[a-z0-9]+}}
// ASM:       and
// ASM:       srai {{[a-z0-9]+}}, {{[a-z0-9]+}}, 16
// ASM:       ret

// -----

// int8 x int8 over 1,024 terms (lane sums up to 128 * 128 * 1024 = 2^24): no lane of 16 bits
// (RV32) or 21 (RV64) holds them, the contraction stays as it is.

func.func @too_wide(%a: tensor<1x1024xi8>) -> tensor<1x2xi32> {
  %wc = arith.constant dense<-128> : tensor<2x1024xi8>
  %e = tensor.empty() : tensor<1x2xi32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<1x2xi32>) {
  ^bb0(%o: i32):
    %c0 = arith.constant 0 : i32
    linalg.yield %c0 : i32
  } -> tensor<1x2xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %wc : tensor<1x1024xi8>, tensor<2x1024xi8>) outs(%init : tensor<1x2xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x2xi32>
  func.return %r : tensor<1x2xi32>
}

// CHECK-LABEL: func.func @too_wide
// CHECK-NOT:   arith.shrsi
// CHECK:       arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:       func.return
// RV64-LABEL: func.func @too_wide
// RV64-NOT:   i64
// RV64:       func.return

// -----

// Weights of 100 over 80 i4 terms: a lane sum reaches -8 * 100 * 80 = -64000, beyond 16 bits; 40
// terms (-32000) fit. The reduction is cut into two chunks of 40: the packed nest gets a parallel
// dimension g (d2, before the reduction d3), reads x at d3 + 40 g and the weights reshaped to
// (2 chunks, 40), and writes one packed sum a chunk; each lane's generic reduces over g.

func.func @chunked(%a: tensor<2x80xi4>) -> tensor<2x2xi32> {
  %w = arith.constant dense<100> : tensor<2x80xi8>
  %e = tensor.empty() : tensor<2x2xi32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x2xi32>) {
  ^bb0(%o: i32):
    %c7 = arith.constant 7 : i32
    linalg.yield %c7 : i32
  } -> tensor<2x2xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<2x80xi4>, tensor<2x80xi8>) outs(%init : tensor<2x2xi32>) {
  ^bb0(%x: i4, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i4 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  func.return %r : tensor<2x2xi32>
}

// CHECK-LABEL: func.func @chunked
// CHECK:       arith.constant dense<6553700> : tensor<1x2x40xi32>
// CHECK:       affine_map<(d0, d1, d2, d3) -> (d0, (d3 + (d2 * 40)))>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-SAME:  iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:  ins(%{{.*}}, %{{.*}} : tensor<2x80xi8>, tensor<1x2x40xi32>) outs(%{{.*}} : tensor<2x1x2xi32>)
// CHECK:       affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, (d1 * 2))>
// CHECK-SAME:  iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:  outs(%init : tensor<2x2xi32>)
// CHECK:       affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + 1))>
// CHECK-NOT:   linalg.generic
// CHECK:       func.return
