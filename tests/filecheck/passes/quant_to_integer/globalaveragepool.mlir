// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// GlobalAveragePool over 2x3 (i8, s = 0.5, zp = -2): one window of 6 taps, no padding,
// init -6 * -2 = 12, L = 6 so no factor table; scale 0.5 / 6 (printed 0.083333333333333329);
// bound 6 * 129 (max|x + 2| = |127 + 2|) * 1 = 774.

func.func @gap(%x: tensor<1x2x2x3xf32>) -> tensor<1x2x1x1xf32> {
  %xq = quant.qcast %x : tensor<1x2x2x3xf32> to tensor<1x2x2x3x!quant.uniform<i8:f32, 0.5:-2>>
  %xf = quant.dcast %xq : tensor<1x2x2x3x!quant.uniform<i8:f32, 0.5:-2>> to tensor<1x2x2x3xf32>
  %y = "onnx.GlobalAveragePool"(%xf) : (tensor<1x2x2x3xf32>) -> tensor<1x2x1x1xf32> loc("gap")
  %yq = quant.qcast %y : tensor<1x2x1x1xf32> to tensor<1x2x1x1x!quant.uniform<i8:f32, 0.5:-2>>
  %yf = quant.dcast %yq : tensor<1x2x1x1x!quant.uniform<i8:f32, 0.5:-2>> to tensor<1x2x1x1xf32>
  func.return %yf : tensor<1x2x1x1xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<1x2x2x3x!quant.uniform<i8:f32, 5.000000e-01:-2>> to tensor<1x2x2x3xi8>
// CHECK-NEXT: %[[START:.*]] = arith.constant dense<12> : tensor<i32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x2x1x1xi32>
// CHECK-NEXT: %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[START]] : tensor<i32>) outs(%[[E]] : tensor<1x2x1x1xi32>) {
// CHECK:      %[[WINDOW:.*]] = tensor.empty() : tensor<2x3xi8>
// CHECK-NEXT: %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 + d4), (d3 + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[WINDOW]] : tensor<1x2x2x3xi8>, tensor<2x3xi8>) outs(%[[INIT]] : tensor<1x2x1x1xi32>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %{{.*}}: i8, %[[OUT:.*]]: i32):
// CHECK-NEXT:   %[[VE:.*]] = arith.extsi %[[V]] : i8 to i32
// CHECK-NEXT:   %[[S:.*]] = arith.addi %[[OUT]], %[[VE]] : i32
// CHECK-NEXT:   linalg.yield %[[S]] : i32
// CHECK-NEXT: } -> tensor<1x2x1x1xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[T]] : tensor<1x2x1x1xi32> to tensor<1x2x1x1x!quant.uniform<i32<-774:774>:f32, 0.083333333333333329>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<1x2x1x1x!quant.uniform<i32<-774:774>:f32, 0.083333333333333329>> to tensor<1x2x1x1x!quant.uniform<i8:f32, 5.000000e-01:-2>>
