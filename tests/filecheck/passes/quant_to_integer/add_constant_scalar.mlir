// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Add of a scalar float constant c = 0.3 (the common ONNX form): x (i8, s = 0.5, zp = 2),
// max|x - zp| = 130, k = 16: R(0.3f32 * 2^16 / 0.5) = R(39321.6016) = 39322, minus
// zp << 16 = 131072: one offset -91750, read through a 0-d map. Bound 130 * 2^16 + 39322 = 8559002.

func.func @add_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:2>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<i8:f32, 0.5:2>> to tensor<4xf32>
  %c = "onnx.Constant"() {value = dense<0.3> : tensor<f32>} : () -> tensor<f32>
  %y = "onnx.Add"(%xf, %c) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> loc("add")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<i8:f32, 0.5>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      %[[T:.*]] = arith.constant dense<-91750> : tensor<i32>
// CHECK-NEXT: %[[X:.*]] = quant.scast %xq : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>> to tensor<4xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi32>
// CHECK-NEXT: %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]], %[[T]] : tensor<4xi8>, tensor<i32>) outs(%[[E]] : tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %[[C:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[VE:.*]] = arith.extsi %[[V]] : i8 to i32
// CHECK-NEXT:   %[[K:.*]] = arith.constant 16 : i32
// CHECK-NEXT:   %[[VS:.*]] = arith.shli %[[VE]], %[[K]] : i32
// CHECK-NEXT:   %[[R:.*]] = arith.addi %[[VS]], %[[C]] : i32
// CHECK-NEXT:   linalg.yield %[[R]] : i32
// CHECK-NEXT: } -> tensor<4xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[SUM]] : tensor<4xi32> to tensor<4x!quant.uniform<i32<-8559002:8559002>:f32, 7.62939453125E-6>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<4x!quant.uniform<i32<-8559002:8559002>:f32, 7.62939453125E-6>> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
