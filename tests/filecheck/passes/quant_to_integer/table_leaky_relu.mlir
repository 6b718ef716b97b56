// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// LeakyRelu (alpha 0.25) between a 4-bit input (scale 0.5, stored -8..7, real -4..3.5) and an
// i8 result (scale 0.125): a 16-entry table indexed by q + 8. By the definition, the stored
// results are q for q < 0 (0.25 * 0.5 q / 0.125) and 4 q for q >= 0 (0.5 q / 0.125).

func.func @leaky(%x: tensor<6xf32>) -> tensor<6xf32> {
  %xq = quant.qcast %x : tensor<6xf32> to tensor<6x!quant.uniform<i4:f32, 0.5>>
  %xf = quant.dcast %xq : tensor<6x!quant.uniform<i4:f32, 0.5>> to tensor<6xf32>
  %y = "onnx.LeakyRelu"(%xf) {alpha = 2.500000e-01 : f32} : (tensor<6xf32>) -> tensor<6xf32> loc("leaky")
  %yq = quant.qcast %y : tensor<6xf32> to tensor<6x!quant.uniform<i8:f32, 0.125>>
  %yf = quant.dcast %yq : tensor<6x!quant.uniform<i8:f32, 0.125>> to tensor<6xf32>
  func.return %yf : tensor<6xf32>
}

// CHECK:      %[[T:.*]] = arith.constant dense<[-8, -7, -6, -5, -4, -3, -2, -1, 0, 4, 8, 12, 16, 20, 24, 28]> : tensor<16xi8>
// CHECK-NEXT: %[[X:.*]] = quant.scast %xq : tensor<6x!quant.uniform<i4:f32, 5.000000e-01>> to tensor<6xi4>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<6xi8>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]] : tensor<6xi4>) outs(%[[E]] : tensor<6xi8>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i4, %{{.*}}: i8):
// CHECK-NEXT:   %[[VE:.*]] = arith.extsi %[[V]] : i4 to i32
// CHECK-NEXT:   %[[LO:.*]] = arith.constant -8 : i32
// CHECK-NEXT:   %[[I:.*]] = arith.subi %[[VE]], %[[LO]] : i32
// CHECK-NEXT:   %[[J:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:   %[[L:.*]] = tensor.extract %[[T]][%[[J]]] : tensor<16xi8>
// CHECK-NEXT:   linalg.yield %[[L]] : i8
// CHECK-NEXT: } -> tensor<6xi8>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[R]] : tensor<6xi8> to tensor<6x!quant.uniform<i8:f32, 1.250000e-01>>
// CHECK-NEXT: %yf = quant.dcast %[[Q]]
