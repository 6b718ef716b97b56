// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Sub: as Add (both to the common scale 0.5 / 2^16 = 7.62939453125e-06), then subi.
// max |q - zp| is 128 for both (i8 with zp 0, and i8 with zp -1: |127 + 1|), ratio 256, k = 16,
// bound = 2 * (128 * 2^16 + 1) = 16777218.

func.func @sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %aq = quant.qcast %a : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  %af = quant.dcast %aq : tensor<4x!quant.uniform<i8:f32, 0.5>> to tensor<4xf32>
  %bq = quant.qcast %b : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:-1>>
  %bf = quant.dcast %bq : tensor<4x!quant.uniform<i8:f32, 0.5:-1>> to tensor<4xf32>
  %y = "onnx.Sub"(%af, %bf) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("sub")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      %[[RA:.*]] = quant.requant %aq : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<4x!quant.uniform<i32<-16777218:16777218>:f32, 7.62939453125E-6>>
// CHECK-NEXT: %[[A:.*]] = quant.scast %[[RA]] : tensor<4x!quant.uniform<i32<-16777218:16777218>:f32, 7.62939453125E-6>> to tensor<4xi32>
// CHECK-NEXT: %[[RB:.*]] = quant.requant %bq : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-1>> to tensor<4x!quant.uniform<i32<-16777218:16777218>:f32, 7.62939453125E-6>>
// CHECK-NEXT: %[[B:.*]] = quant.scast %[[RB]] : tensor<4x!quant.uniform<i32<-16777218:16777218>:f32, 7.62939453125E-6>> to tensor<4xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi32>
// CHECK-NEXT: %[[DIFF:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xi32>, tensor<4xi32>) outs(%[[E]] : tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[Z:.*]] = arith.subi %[[X]], %[[Y]] : i32
// CHECK-NEXT:   linalg.yield %[[Z]] : i32
// CHECK-NEXT: } -> tensor<4xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[DIFF]] : tensor<4xi32> to tensor<4x!quant.uniform<i32<-16777218:16777218>:f32, 7.62939453125E-6>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<4x!quant.uniform<i32<-16777218:16777218>:f32, 7.62939453125E-6>> to tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>
