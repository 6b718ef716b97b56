// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Gemm, transB = 0 (B is K x N: column j is output channel j), with an int32 bias at exactly
// S = s_a s_b = 0.5 * 0.25 = 0.125: the bias is folded into the init, no extra generic.
// Columns of B: [1, -1, 2, 0], [0, 3, 0, -3], [1, 1, 1, 1] (sums 2, 0, 4); zp_a = 1, so
// init = [5, -7, 100] - 1 * [2, 0, 4] = [3, -7, 96];
// |acc| <= max(3 + 128 * 4, 7 + 128 * 6, 96 + 128 * 4) = 775.

func.func @gemm(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %aq = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32, 0.5:1>>
  %af = quant.dcast %aq : tensor<2x4x!quant.uniform<i8:f32, 0.5:1>> to tensor<2x4xf32>
  %c = "onnx.Constant"() {value = dense<[[1, 0, 1], [-1, 3, 1], [2, 0, 1], [0, -3, 1]]> : tensor<4x3xi8>} : () -> tensor<4x3xi8>
  %bq = quant.scast %c : tensor<4x3xi8> to tensor<4x3x!quant.uniform<i8:f32, 0.25>>
  %b = quant.dcast %bq : tensor<4x3x!quant.uniform<i8:f32, 0.25>> to tensor<4x3xf32>
  %bc = "onnx.Constant"() {value = dense<[5, -7, 100]> : tensor<3xi32>} : () -> tensor<3xi32>
  %biasq = quant.scast %bc : tensor<3xi32> to tensor<3x!quant.uniform<i32:f32, 0.125>>
  %bias = quant.dcast %biasq : tensor<3x!quant.uniform<i32:f32, 0.125>> to tensor<3xf32>
  %y = "onnx.Gemm"(%af, %b, %bias) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 0 : i64} : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("fc")
  %yq = quant.qcast %y : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<2x3x!quant.uniform<i8:f32, 0.5>> to tensor<2x3xf32>
  func.return %yf : tensor<2x3xf32>
}

// CHECK:      %[[A:.*]] = quant.scast %aq : tensor<2x4x!quant.uniform<i8:f32, 5.000000e-01:1>> to tensor<2x4xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{\[\[}}1, -1, 2, 0], [0, 3, 0, -3], [1, 1, 1, 1]]> : tensor<3x4xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<[3, -7, 96]> : tensor<3xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK-NEXT: %[[FILLED:.*]] = linalg.generic {{.*}} ins(%[[INIT]] : tensor<3xi32>) outs(%[[E]] : tensor<2x3xi32>) {
// CHECK:      %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[W]] : tensor<2x4xi8>, tensor<3x4xi8>) outs(%[[FILLED]] : tensor<2x3xi32>) {
// CHECK:      } -> tensor<2x3xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[ACC]] : tensor<2x3xi32> to tensor<2x3x!quant.uniform<i32<-775:775>:f32, 1.250000e-01>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<2x3x!quant.uniform<i32<-775:775>:f32, 1.250000e-01>> to tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01>>
