// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Conv with pads: x (u8, s_x = 0.5, zp_x = 10) is padded with zp_x by an onnx.Pad of its
// storage integers, so padded taps are x = zp_x like any other and the correction removes them.
// w' = w (zp_w = 0), sum_r w'[c] = 1 + 2 + 3 + 4 = 10 and -1 + 0 + 1 - 2 = -2, so
// init[c] = -zp_x * sum_r w'[c] = [-100, 20]. S = s_x s_w = 0.5 * 0.25 = 0.125.
// |acc| <= |init[c]| + max|x| * sum_r |w'[c]| = max(100 + 255 * 10, 20 + 255 * 4) = 2650.

func.func @conv(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %xq = quant.qcast %x : tensor<1x1x3x3xf32> to tensor<1x1x3x3x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<1x1x3x3x!quant.uniform<u8:f32, 0.5:10>> to tensor<1x1x3x3xf32>
  %c = "onnx.Constant"() {value = dense<[[[[1, 2], [3, 4]]], [[[-1, 0], [1, -2]]]]> : tensor<2x1x2x2xi8>} : () -> tensor<2x1x2x2xi8>
  %wq = quant.scast %c : tensor<2x1x2x2xi8> to tensor<2x1x2x2x!quant.uniform<i8:f32, 0.25>>
  %w = quant.dcast %wq : tensor<2x1x2x2x!quant.uniform<i8:f32, 0.25>> to tensor<2x1x2x2xf32>
  %y = "onnx.Conv"(%xf, %w) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x4x4xf32> loc("conv0")
  %yq = quant.qcast %y : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:-3>>
  %yf = quant.dcast %yq : tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<1x2x4x4xf32>
  func.return %yf : tensor<1x2x4x4xf32>
}

// CHECK:      %xq = quant.qcast %x : tensor<1x1x3x3xf32> to tensor<1x1x3x3x!quant.uniform<u8:f32, 5.000000e-01:10>>
// CHECK-NEXT: %[[X:.*]] = quant.scast %xq : tensor<1x1x3x3x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<1x1x3x3xi8>
// CHECK-NEXT: %[[PADS:.*]] = arith.constant dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>
// CHECK-NEXT: %[[FILL:.*]] = arith.constant dense<10> : tensor<i8>
// CHECK-NEXT: %[[XP:.*]] = "onnx.Pad"(%[[X]], %[[PADS]], %[[FILL]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"} : (tensor<1x1x3x3xi8>, tensor<8xi64>, tensor<i8>) -> tensor<1x1x5x5xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1, 2], [3, 4]]], {{\[\[\[}}-1, 0], [1, -2]]]]> : tensor<2x1x2x2xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<[-100, 20]> : tensor<2xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x2x4x4xi32>
// CHECK-NEXT: %[[FILLED:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[INIT]] : tensor<2xi32>) outs(%[[E]] : tensor<1x2x4x4xi32>) {
// CHECK-NEXT: ^bb0(%[[I:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   linalg.yield %[[I]] : i32
// CHECK-NEXT: } -> tensor<1x2x4x4xi32>
// CHECK-NEXT: %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, (d2 + d5), (d3 + d6))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XP]], %[[W]] : tensor<1x1x5x5xi8>, tensor<2x1x2x2xi8>) outs(%[[FILLED]] : tensor<1x2x4x4xi32>) {
// CHECK-NEXT: ^bb0(%[[XV:.*]]: i8, %[[WV:.*]]: i8, %[[OUT:.*]]: i32):
// CHECK-NEXT:   %[[XE:.*]] = arith.extui %[[XV]] : i8 to i32
// CHECK-NEXT:   %[[WE:.*]] = arith.extsi %[[WV]] : i8 to i32
// CHECK-NEXT:   %[[P:.*]] = arith.muli %[[XE]], %[[WE]] : i32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addi %[[OUT]], %[[P]] : i32
// CHECK-NEXT:   linalg.yield %[[SUM]] : i32
// CHECK-NEXT: } -> tensor<1x2x4x4xi32>
// CHECK-NEXT: %[[ACCQ:.*]] = quant.scast %[[ACC]] : tensor<1x2x4x4xi32> to tensor<1x2x4x4x!quant.uniform<i32<-2650:2650>:f32, 1.250000e-01>>
// CHECK-NEXT: %yq = quant.requant %[[ACCQ]] : tensor<1x2x4x4x!quant.uniform<i32<-2650:2650>:f32, 1.250000e-01>> to tensor<1x2x4x4x!quant.uniform<i8:f32, 1.000000e-01:-3>>
// CHECK-NEXT: %yf = quant.dcast %yq : tensor<1x2x4x4x!quant.uniform<i8:f32, 1.000000e-01:-3>> to tensor<1x2x4x4xf32>
// CHECK-NEXT: func.return %yf : tensor<1x2x4x4xf32>
