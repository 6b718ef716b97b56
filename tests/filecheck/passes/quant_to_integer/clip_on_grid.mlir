// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Clip(0, 6) (ReLU6) on x (u8, s = 0.5, zp = 10): both bounds are on the grid,
// 0 / 0.5 + 10 = 10 and 6 / 0.5 + 10 = 22, so the storage integers are clamped to [10, 22]
// (exact; no qcast user needed), same type.

func.func @clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  %lo = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %hi = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %y = "onnx.Clip"(%xf, %lo, %hi) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> loc("relu6")
  func.return %y : tensor<4xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi8>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]] : tensor<4xi8>) outs(%[[E]] : tensor<4xi8>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:   %[[LO:.*]] = arith.constant 10 : i32
// CHECK-NEXT:   %[[HI:.*]] = arith.constant 22 : i32
// CHECK-NEXT:   %[[VE:.*]] = arith.extui %[[V]] : i8 to i32
// CHECK-NEXT:   %[[A:.*]] = arith.maxsi %[[VE]], %[[LO]] : i32
// CHECK-NEXT:   %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : i32
// CHECK-NEXT:   %[[T:.*]] = arith.trunci %[[B]] : i32 to i8
// CHECK-NEXT:   linalg.yield %[[T]] : i8
// CHECK-NEXT: } -> tensor<4xi8>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[R]] : tensor<4xi8> to tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>>
// CHECK-NEXT: %y = quant.dcast %[[Q]] : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4xf32>
