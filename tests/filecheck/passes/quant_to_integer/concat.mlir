// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Concat of differently quantized inputs feeding one qcast: each input requantized to the
// qcast's type (u8 0.375:20), then joined on the quantized values; no float op is left.

func.func @f(%a: tensor<1x2x2xf32>, %b: tensor<1x3x2xf32>) -> tensor<1x5x2xf32> {
  %aq = quant.qcast %a : tensor<1x2x2xf32> to tensor<1x2x2x!quant.uniform<u8:f32, 0.5:10>>
  %bq = quant.qcast %b : tensor<1x3x2xf32> to tensor<1x3x2x!quant.uniform<i8:f32, 0.25:-3>>
  %ad = quant.dcast %aq : tensor<1x2x2x!quant.uniform<u8:f32, 0.5:10>> to tensor<1x2x2xf32>
  %bd = quant.dcast %bq : tensor<1x3x2x!quant.uniform<i8:f32, 0.25:-3>> to tensor<1x3x2xf32>
  %c = "onnx.Concat"(%ad, %bd) {axis = 1 : i64} : (tensor<1x2x2xf32>, tensor<1x3x2xf32>) -> tensor<1x5x2xf32>
  %cq = quant.qcast %c : tensor<1x5x2xf32> to tensor<1x5x2x!quant.uniform<u8:f32, 0.375:20>>
  %cd = quant.dcast %cq : tensor<1x5x2x!quant.uniform<u8:f32, 0.375:20>> to tensor<1x5x2xf32>
  func.return %cd : tensor<1x5x2xf32>
}

// CHECK:      %aq = quant.qcast %a
// CHECK-NEXT: %bq = quant.qcast %b
// CHECK-NEXT: %[[A:.*]] = quant.requant %aq : tensor<1x2x2x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<1x2x2x!quant.uniform<u8:f32, 3.750000e-01:20>>
// CHECK-NEXT: %[[B:.*]] = quant.requant %bq : tensor<1x3x2x!quant.uniform<i8:f32, 2.500000e-01:-3>> to tensor<1x3x2x!quant.uniform<u8:f32, 3.750000e-01:20>>
// CHECK-NEXT: %cq = "onnx.Concat"(%[[A]], %[[B]]) {axis = 1 : i64} : {{.*}} -> tensor<1x5x2x!quant.uniform<u8:f32, 3.750000e-01:20>>
// CHECK-NEXT: %cd = quant.dcast %cq
// CHECK-NEXT: func.return %cd
