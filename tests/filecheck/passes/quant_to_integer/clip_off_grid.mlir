// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Clip(0.3, 6.2) on x (u8, s = 0.5, zp = 10): 0.3 / 0.5 + 10 = 10.6 is off the grid, so the
// Clip needs its single qcast user (u8, s = 0.1): x is requantized to the qcast's type, then
// clamped to [qcast(0.3), qcast(6.2)] = [R(3.0000001), R(61.9999998)] = [3, 62].

func.func @clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  %lo = "onnx.Constant"() {value = dense<0.3> : tensor<f32>} : () -> tensor<f32>
  %hi = "onnx.Constant"() {value = dense<6.2> : tensor<f32>} : () -> tensor<f32>
  %y = "onnx.Clip"(%xf, %lo, %hi) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> loc("clip")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.1>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<u8:f32, 0.1>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      %[[R:.*]] = quant.requant %xq : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4x!quant.uniform<u8:f32, 1.000000e-01>>
// CHECK-NEXT: %[[X:.*]] = quant.scast %[[R]] : tensor<4x!quant.uniform<u8:f32, 1.000000e-01>> to tensor<4xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi8>
// CHECK-NEXT: %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]] : tensor<4xi8>) outs(%[[E]] : tensor<4xi8>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:   %[[LO:.*]] = arith.constant 3 : i32
// CHECK-NEXT:   %[[HI:.*]] = arith.constant 62 : i32
// CHECK-NEXT:   %[[VE:.*]] = arith.extui %[[V]] : i8 to i32
// CHECK-NEXT:   %[[A:.*]] = arith.maxsi %[[VE]], %[[LO]] : i32
// CHECK-NEXT:   %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : i32
// CHECK-NEXT:   %[[T:.*]] = arith.trunci %[[B]] : i32 to i8
// CHECK-NEXT:   linalg.yield %[[T]] : i8
// CHECK-NEXT: } -> tensor<4xi8>
// CHECK-NEXT: %yq = quant.scast %[[C]] : tensor<4xi8> to tensor<4x!quant.uniform<u8:f32, 1.000000e-01>>
// CHECK-NEXT: %yf = quant.dcast %yq : tensor<4x!quant.uniform<u8:f32, 1.000000e-01>> to tensor<4xf32>
