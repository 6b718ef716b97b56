// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Add of a float constant c (one value per element): x (i8, s = 0.5, zp = 2), max|x - zp| = 130.
// k = 16: c on the grid of 0.5 / 2^16: R(c * 131072) = [39322 (0.3f32 = 0.30000001192...,
// 39321.6016), -32768, 131072, 0]; bound 130 * 2^16 + 131072 = 8650752 < 2^31.
// The table holds R(c 2^k / s) - (zp << k) = [39322, -32768, 131072, 0] - 131072.

func.func @add_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<i8:f32, 0.5:2>> to tensor<4xf32>
  %c = "onnx.Constant"() {value = dense<[0.3, -0.25, 1.0, 0.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "onnx.Add"(%xf, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("add")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<i8:f32, 0.5>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      %[[T:.*]] = arith.constant dense<[-91750, -163840, 0, -131072]> : tensor<4xi32>
// CHECK-NEXT: %[[X:.*]] = quant.scast %xq : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>> to tensor<4xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi32>
// CHECK-NEXT: %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]], %[[T]] : tensor<4xi8>, tensor<4xi32>) outs(%[[E]] : tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %[[C:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[VE:.*]] = arith.extsi %[[V]] : i8 to i32
// CHECK-NEXT:   %[[K:.*]] = arith.constant 16 : i32
// CHECK-NEXT:   %[[VS:.*]] = arith.shli %[[VE]], %[[K]] : i32
// CHECK-NEXT:   %[[R:.*]] = arith.addi %[[VS]], %[[C]] : i32
// CHECK-NEXT:   linalg.yield %[[R]] : i32
// CHECK-NEXT: } -> tensor<4xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[SUM]] : tensor<4xi32> to tensor<4x!quant.uniform<i32<-8650752:8650752>:f32, 7.62939453125E-6>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<4x!quant.uniform<i32<-8650752:8650752>:f32, 7.62939453125E-6>> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
