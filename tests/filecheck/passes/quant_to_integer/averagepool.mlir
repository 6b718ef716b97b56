// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// AveragePool 3x3, pads 1, count_include_pad = 0 on 3x3 (u8, s = 0.5, zp = 100): padded with
// zp (centered 0), init -9 * 100 = -900, so t = sum (x - zp). ONNX divides by the taps inside
// the input: 4 at the corners, 6 on the edges, 9 in the centre; L = lcm(4, 6, 9) = 36 and
// t * (36 / count) is exact at scale 0.5 / 36 = 0.013888888888888888: factors [[9, 6, 9],
// [6, 4, 6], [9, 6, 9]]. Bound 9 taps * 155 (max|x - zp|) * 9 = 12555.

func.func @averagepool(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %xq = quant.qcast %x : tensor<1x1x3x3xf32> to tensor<1x1x3x3x!quant.uniform<u8:f32, 0.5:100>>
  %xf = quant.dcast %xq : tensor<1x1x3x3x!quant.uniform<u8:f32, 0.5:100>> to tensor<1x1x3x3xf32>
  %y = "onnx.AveragePool"(%xf) {count_include_pad = 0 : i64, auto_pad = "NOTSET", ceil_mode = 0 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> loc("pool")
  %yq = quant.qcast %y : tensor<1x1x3x3xf32> to tensor<1x1x3x3x!quant.uniform<u8:f32, 0.5:100>>
  %yf = quant.dcast %yq : tensor<1x1x3x3x!quant.uniform<u8:f32, 0.5:100>> to tensor<1x1x3x3xf32>
  func.return %yf : tensor<1x1x3x3xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<1x1x3x3x!quant.uniform<u8:f32, 5.000000e-01:100>> to tensor<1x1x3x3xi8>
// CHECK-NEXT: %[[PADS:.*]] = arith.constant dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>
// CHECK-NEXT: %[[FILL:.*]] = arith.constant dense<100> : tensor<i8>
// CHECK-NEXT: %[[XP:.*]] = "onnx.Pad"(%[[X]], %[[PADS]], %[[FILL]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x1x3x3xi8>, tensor<8xi64>, tensor<i8>) -> tensor<1x1x5x5xi8>
// CHECK-NEXT: %[[START:.*]] = arith.constant dense<-900> : tensor<i32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x1x3x3xi32>
// CHECK-NEXT: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[START]] : tensor<i32>) outs(%[[E]] : tensor<1x1x3x3xi32>) {
// CHECK:      %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xi8>
// CHECK-NEXT: %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 + d4), (d3 + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[XP]], %[[WINDOW]] : tensor<1x1x5x5xi8>, tensor<3x3xi8>) outs(%[[INIT]] : tensor<1x1x3x3xi32>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %{{.*}}: i8, %[[OUT:.*]]: i32):
// CHECK-NEXT:   %[[VE:.*]] = arith.extui %[[V]] : i8 to i32
// CHECK-NEXT:   %[[S:.*]] = arith.addi %[[OUT]], %[[VE]] : i32
// CHECK-NEXT:   linalg.yield %[[S]] : i32
// CHECK-NEXT: } -> tensor<1x1x3x3xi32>
// CHECK-NEXT: %[[FACTORS:.*]] = arith.constant dense<{{\[\[}}9, 6, 9], [6, 4, 6], [9, 6, 9]]> : tensor<3x3xi32>
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<1x1x3x3xi32>
// CHECK-NEXT: %[[SCALED:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[T]], %[[FACTORS]] : tensor<1x1x3x3xi32>, tensor<3x3xi32>) outs(%[[E2]] : tensor<1x1x3x3xi32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: i32, %[[F:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[P:.*]] = arith.muli %[[A]], %[[F]] : i32
// CHECK-NEXT:   linalg.yield %[[P]] : i32
// CHECK-NEXT: } -> tensor<1x1x3x3xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[SCALED]] : tensor<1x1x3x3xi32> to tensor<1x1x3x3x!quant.uniform<i32<-12555:12555>:f32, 0.013888888888888888>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<1x1x3x3x!quant.uniform<i32<-12555:12555>:f32, 0.013888888888888888>> to tensor<1x1x3x3x!quant.uniform<u8:f32, 5.000000e-01:100>>
