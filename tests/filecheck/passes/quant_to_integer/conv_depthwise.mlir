// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Depthwise Conv, group = C = 2 with channel multiplier 2 (M = 4 outputs, 1 input channel per
// group): output channel m reads input channel (m floordiv (M / group)) * 1 + ci. Weights per
// output channel (axis 0), no pads (no onnx.Pad). zp_x = 128, sum_r w'[c] = [4, 0, -4, 3], so
// init = -128 * [4, 0, -4, 3] = [-512, 0, 512, -384]; S[c] = 0.5 * {0.125, 0.25, 0.375, 0.5}
// per output channel (axis 1 of the result); |acc| <= max(512 + 255 * 4, 0 + 255 * 4,
// 512 + 255 * 4, 384 + 255 * 3) = 1532.

func.func @depthwise(%x: tensor<1x2x3x3xf32>) -> tensor<1x4x2x2xf32> {
  %xq = quant.qcast %x : tensor<1x2x3x3xf32> to tensor<1x2x3x3x!quant.uniform<u8:f32, 0.5:128>>
  %xf = quant.dcast %xq : tensor<1x2x3x3x!quant.uniform<u8:f32, 0.5:128>> to tensor<1x2x3x3xf32>
  %c = "onnx.Constant"() {value = dense<[[[[1, 1], [1, 1]]], [[[2, 0], [0, -2]]], [[[-1, -1], [-1, -1]]], [[[3, 0], [0, 0]]]]> : tensor<4x1x2x2xi8>} : () -> tensor<4x1x2x2xi8>
  %wq = quant.scast %c : tensor<4x1x2x2xi8> to tensor<4x1x2x2x!quant.uniform<i8:f32:0, {0.125, 0.25, 0.375, 0.5}>>
  %w = quant.dcast %wq : tensor<4x1x2x2x!quant.uniform<i8:f32:0, {0.125, 0.25, 0.375, 0.5}>> to tensor<4x1x2x2xf32>
  %y = "onnx.Conv"(%xf, %w) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 2 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<4x1x2x2xf32>) -> tensor<1x4x2x2xf32> loc("dw")
  %yq = quant.qcast %y : tensor<1x4x2x2xf32> to tensor<1x4x2x2x!quant.uniform<u8:f32, 0.25>>
  %yf = quant.dcast %yq : tensor<1x4x2x2x!quant.uniform<u8:f32, 0.25>> to tensor<1x4x2x2xf32>
  func.return %yf : tensor<1x4x2x2xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<1x2x3x3x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<1x2x3x3xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<4x1x2x2xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<[-512, 0, 512, -384]> : tensor<4xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x4x2x2xi32>
// CHECK-NEXT: %[[FILLED:.*]] = linalg.generic {{.*}} ins(%[[INIT]] : tensor<4xi32>) outs(%[[E]] : tensor<1x4x2x2xi32>) {
// CHECK:      %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 floordiv 2) + d4), (d2 + d5), (d3 + d6))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[W]] : tensor<1x2x3x3xi8>, tensor<4x1x2x2xi8>) outs(%[[FILLED]] : tensor<1x4x2x2xi32>) {
// CHECK:      } -> tensor<1x4x2x2xi32>
// CHECK-NEXT: %[[ACCQ:.*]] = quant.scast %[[ACC]] : tensor<1x4x2x2xi32> to tensor<1x4x2x2x!quant.uniform<i32<-1532:1532>:f32:1, {6.250000e-02,1.250000e-01,1.875000e-01,2.500000e-01}>>
// CHECK-NEXT: %yq = quant.requant %[[ACCQ]] : tensor<1x4x2x2x!quant.uniform<i32<-1532:1532>:f32:1, {6.250000e-02,1.250000e-01,1.875000e-01,2.500000e-01}>> to tensor<1x4x2x2x!quant.uniform<u8:f32, 2.500000e-01>>
