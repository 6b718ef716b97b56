// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Gemm (transB = 1, no bias) then BatchNormalization, folded into the contraction. A (i8,
// s = 0.5, zp = 1) by B (2x4, i8, s = 0.25): S = 0.125. BN: gamma [2, -0.5], var + eps =
// [4, 1], so a = gamma / sqrt(var + eps) = [1, -0.5]: channel 1's weights are negated
// ([0, 3, 0, -3] -> [0, -3, 0, 3]) and S' = |a| S = [0.125, 0.0625]. The bias
// r = a (0 - mean) + beta = [1 * -0.5 + 0.25, -0.5 * -0.25 + 1] = [-0.25, 1.125] lies on the grid:
// [-2, 18] steps of S'; minus zp_x * sum_k w' = [2, 0]: init = [-4, 18].
// |acc| <= max(4 + 128 * 4, 18 + 128 * 6) = 786. No BatchNormalization remains.

func.func @gemm_bn(%a: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %aq = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32, 0.5:1>>
  %af = quant.dcast %aq : tensor<2x4x!quant.uniform<i8:f32, 0.5:1>> to tensor<2x4xf32>
  %c = "onnx.Constant"() {value = dense<[[1, -1, 2, 0], [0, 3, 0, -3]]> : tensor<2x4xi8>} : () -> tensor<2x4xi8>
  %bq = quant.scast %c : tensor<2x4xi8> to tensor<2x4x!quant.uniform<i8:f32, 0.25>>
  %b = quant.dcast %bq : tensor<2x4x!quant.uniform<i8:f32, 0.25>> to tensor<2x4xf32>
  %y = "onnx.Gemm"(%af, %b) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32> loc("fc")
  %gamma = "onnx.Constant"() {value = dense<[2.0, -0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = "onnx.Constant"() {value = dense<[0.25, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[0.5, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[3.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %n = "onnx.BatchNormalization"(%y, %gamma, %beta, %mean, %var) <{resultSegmentSizes = array<i32: 1, 0, 0>}> {epsilon = 1.000000e+00 : f32, momentum = 9.000000e-01 : f32, training_mode = 0 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32> loc("bn")
  %nq = quant.qcast %n : tensor<2x2xf32> to tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  %nf = quant.dcast %nq : tensor<2x2x!quant.uniform<i8:f32, 0.5>> to tensor<2x2xf32>
  func.return %nf : tensor<2x2xf32>
}

// CHECK:      %[[A:.*]] = quant.scast %aq : tensor<2x4x!quant.uniform<i8:f32, 5.000000e-01:1>> to tensor<2x4xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{\[\[}}1, -1, 2, 0], [0, -3, 0, 3]]> : tensor<2x4xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<[-4, 18]> : tensor<2xi32>
// CHECK:      %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[W]] : tensor<2x4xi8>, tensor<2x4xi8>)
// CHECK:      %[[Q:.*]] = quant.scast %[[ACC]] : tensor<2x2xi32> to tensor<2x2x!quant.uniform<i32<-786:786>:f32:1, {1.250000e-01,6.250000e-02}>>
// CHECK-NEXT: %nq = quant.requant %[[Q]] : tensor<2x2x!quant.uniform<i32<-786:786>:f32:1, {1.250000e-01,6.250000e-02}>> to tensor<2x2x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NOT:  onnx.BatchNormalization
