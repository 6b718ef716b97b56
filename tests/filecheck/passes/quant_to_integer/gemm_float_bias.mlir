// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Gemm, transB = 1, float bias: A (i8, s = 0.5, zp = 1) by B (3x4, i8, s = 0.25): rows of B
// are the output channels. sum_k w'[j] = [2, 0, 4], init = -1 * [2, 0, 4] = [-2, 0, -4]; S = 0.125;
// |acc| <= max(2 + 128 * 4, 0 + 128 * 6, 4 + 128 * 4) = 768.
// The f32 bias [0.1, -0.5, 1.0] is no integer: it is added afterwards on the grid of S / 2^16
// (acc << 16 + R(b 2^16 / S)): 0.1f32 = 0.100000001490116... -> R(52428.8008) = 52429,
// -0.5 -> -262144, 1.0 -> 524288; k = 16 holds since 768 * 2^16 + 524288 = 50855936 < 2^31.
// Accumulator scale 0.125 / 2^16 = 1.9073486328125e-06.

func.func @gemm(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %aq = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32, 0.5:1>>
  %af = quant.dcast %aq : tensor<2x4x!quant.uniform<i8:f32, 0.5:1>> to tensor<2x4xf32>
  %c = "onnx.Constant"() {value = dense<[[1, -1, 2, 0], [0, 3, 0, -3], [1, 1, 1, 1]]> : tensor<3x4xi8>} : () -> tensor<3x4xi8>
  %bq = quant.scast %c : tensor<3x4xi8> to tensor<3x4x!quant.uniform<i8:f32, 0.25>>
  %b = quant.dcast %bq : tensor<3x4x!quant.uniform<i8:f32, 0.25>> to tensor<3x4xf32>
  %bias = "onnx.Constant"() {value = dense<[0.1, -0.5, 1.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %y = "onnx.Gemm"(%af, %b, %bias) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("fc")
  %yq = quant.qcast %y : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<2x3x!quant.uniform<i8:f32, 0.5>> to tensor<2x3xf32>
  func.return %yf : tensor<2x3xf32>
}

// CHECK:      %[[A:.*]] = quant.scast %aq : tensor<2x4x!quant.uniform<i8:f32, 5.000000e-01:1>> to tensor<2x4xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{\[\[}}1, -1, 2, 0], [0, 3, 0, -3], [1, 1, 1, 1]]> : tensor<3x4xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<[-2, 0, -4]> : tensor<3xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK-NEXT: %[[FILLED:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[INIT]] : tensor<3xi32>) outs(%[[E]] : tensor<2x3xi32>) {
// CHECK:      %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[W]] : tensor<2x4xi8>, tensor<3x4xi8>) outs(%[[FILLED]] : tensor<2x3xi32>) {
// CHECK:      } -> tensor<2x3xi32>
// CHECK-NEXT: %[[BIAS:.*]] = arith.constant dense<[52429, -262144, 524288]> : tensor<3xi32>
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK-NEXT: %[[TOTAL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[ACC]], %[[BIAS]] : tensor<2x3xi32>, tensor<3xi32>) outs(%[[E2]] : tensor<2x3xi32>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[K:.*]] = arith.constant 16 : i32
// CHECK-NEXT:   %[[SHIFTED:.*]] = arith.shli %[[V]], %[[K]] : i32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addi %[[SHIFTED]], %[[B]] : i32
// CHECK-NEXT:   linalg.yield %[[SUM]] : i32
// CHECK-NEXT: } -> tensor<2x3xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[TOTAL]] : tensor<2x3xi32> to tensor<2x3x!quant.uniform<i32<-50855936:50855936>:f32, 1.9073486328125E-6>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<2x3x!quant.uniform<i32<-50855936:50855936>:f32, 1.9073486328125E-6>> to tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01>>
