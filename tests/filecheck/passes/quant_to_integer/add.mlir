// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Add of two dequantized tensors (b broadcasts along axis 0): a (u8, 0.5, zp 128), b (i8, 0.25).
// finest = 0.25; ratio = 128 * 0.5 / 0.25 + 128 * 0.25 / 0.25 = 384, and 2^31 / 384 > 2^16, so
// k = 16 and the common scale is 0.25 / 2^16 = 3.814697265625e-06. Both operands are
// requantized to it; the bound is (128 * 2 * 2^16 + 1) + (128 * 2^16 + 1) = 25165826.

func.func @add(%a: tensor<2x4xf32>, %b: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %aq = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<u8:f32, 0.5:128>>
  %af = quant.dcast %aq : tensor<2x4x!quant.uniform<u8:f32, 0.5:128>> to tensor<2x4xf32>
  %bq = quant.qcast %b : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 0.25>>
  %bf = quant.dcast %bq : tensor<1x4x!quant.uniform<i8:f32, 0.25>> to tensor<1x4xf32>
  %y = "onnx.Add"(%af, %bf) : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32> loc("add")
  %yq = quant.qcast %y : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32, 1.0>>
  %yf = quant.dcast %yq : tensor<2x4x!quant.uniform<i8:f32, 1.0>> to tensor<2x4xf32>
  func.return %yf : tensor<2x4xf32>
}

// CHECK:      %[[RA:.*]] = quant.requant %aq : tensor<2x4x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<2x4x!quant.uniform<i32<-25165826:25165826>:f32, 3.814697265625E-6>>
// CHECK-NEXT: %[[A:.*]] = quant.scast %[[RA]] : tensor<2x4x!quant.uniform<i32<-25165826:25165826>:f32, 3.814697265625E-6>> to tensor<2x4xi32>
// CHECK-NEXT: %[[RB:.*]] = quant.requant %bq : tensor<1x4x!quant.uniform<i8:f32, 2.500000e-01>> to tensor<1x4x!quant.uniform<i32<-25165826:25165826>:f32, 3.814697265625E-6>>
// CHECK-NEXT: %[[B:.*]] = quant.scast %[[RB]] : tensor<1x4x!quant.uniform<i32<-25165826:25165826>:f32, 3.814697265625E-6>> to tensor<1x4xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x4xi32>
// CHECK-NEXT: %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x4xi32>, tensor<1x4xi32>) outs(%[[E]] : tensor<2x4xi32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[Z:.*]] = arith.addi %[[X]], %[[Y]] : i32
// CHECK-NEXT:   linalg.yield %[[Z]] : i32
// CHECK-NEXT: } -> tensor<2x4xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[SUM]] : tensor<2x4xi32> to tensor<2x4x!quant.uniform<i32<-25165826:25165826>:f32, 3.814697265625E-6>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<2x4x!quant.uniform<i32<-25165826:25165826>:f32, 3.814697265625E-6>> to tensor<2x4x!quant.uniform<i8:f32, 1.000000e+00>>
