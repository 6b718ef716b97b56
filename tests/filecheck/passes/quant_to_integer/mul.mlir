// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Mul: (a - 10) * (b - -1) at s_a s_b = 0.5 * 0.25 = 0.125 (exact).
// Bound: max|a - 10| = 245 (u8), max|b + 1| = 128 (i8), 245 * 128 = 31360.

func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %aq = quant.qcast %a : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %af = quant.dcast %aq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  %bq = quant.qcast %b : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.25:-1>>
  %bf = quant.dcast %bq : tensor<4x!quant.uniform<i8:f32, 0.25:-1>> to tensor<4xf32>
  %y = "onnx.Mul"(%af, %bf) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("mul")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      %[[A:.*]] = quant.scast %aq : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4xi8>
// CHECK-NEXT: %[[B:.*]] = quant.scast %bq : tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-1>> to tensor<4xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi32>
// CHECK-NEXT: %[[P:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xi8>, tensor<4xi8>) outs(%[[E]] : tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %{{.*}}: i32):
// CHECK-NEXT:   %[[XE:.*]] = arith.extui %[[X]] : i8 to i32
// CHECK-NEXT:   %[[ZA:.*]] = arith.constant 10 : i32
// CHECK-NEXT:   %[[XC:.*]] = arith.subi %[[XE]], %[[ZA]] : i32
// CHECK-NEXT:   %[[YE:.*]] = arith.extsi %[[Y]] : i8 to i32
// CHECK-NEXT:   %[[ZB:.*]] = arith.constant -1 : i32
// CHECK-NEXT:   %[[YC:.*]] = arith.subi %[[YE]], %[[ZB]] : i32
// CHECK-NEXT:   %[[M:.*]] = arith.muli %[[XC]], %[[YC]] : i32
// CHECK-NEXT:   linalg.yield %[[M]] : i32
// CHECK-NEXT: } -> tensor<4xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[P]] : tensor<4xi32> to tensor<4x!quant.uniform<i32<-31360:31360>:f32, 1.250000e-01>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<4x!quant.uniform<i32<-31360:31360>:f32, 1.250000e-01>> to tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>
