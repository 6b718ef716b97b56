// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s
// RUN: bitfold-opt %s -p 'quant-to-integer{integer-only=true}' | filecheck %s

// MatMul of two quantized activations (1x2x3x4 @ 1x1x4x5, B's head dimension broadcast: read at
// index 0): loops b0, h = d1, i = d2, j = d3 | k = d4. The init is K za zb = 4 * 3 * 128 = 1536;
// one multiply-accumulate of the stored integers per term; A's row sums times zb = 128 and B's
// column sums times za = 3 are subtracted once per output. S = 0.5 * 0.25 = 0.125, and
// |acc| <= K max|a - za| max|b - zb| = 4 * 252 * 128 = 129024.

func.func @attention(%a: tensor<1x2x3x4xf32>, %b: tensor<1x1x4x5xf32>) -> tensor<1x2x3x5xf32> {
  %aq = quant.qcast %a : tensor<1x2x3x4xf32> to tensor<1x2x3x4x!quant.uniform<u8:f32, 0.5:3>>
  %af = quant.dcast %aq : tensor<1x2x3x4x!quant.uniform<u8:f32, 0.5:3>> to tensor<1x2x3x4xf32>
  %bq = quant.qcast %b : tensor<1x1x4x5xf32> to tensor<1x1x4x5x!quant.uniform<u8:f32, 0.25:128>>
  %bf = quant.dcast %bq : tensor<1x1x4x5x!quant.uniform<u8:f32, 0.25:128>> to tensor<1x1x4x5xf32>
  %y = "onnx.MatMul"(%af, %bf) : (tensor<1x2x3x4xf32>, tensor<1x1x4x5xf32>) -> tensor<1x2x3x5xf32> loc("qk")
  %yq = quant.qcast %y : tensor<1x2x3x5xf32> to tensor<1x2x3x5x!quant.uniform<i8:f32, 2.0>>
  %yf = quant.dcast %yq : tensor<1x2x3x5x!quant.uniform<i8:f32, 2.0>> to tensor<1x2x3x5xf32>
  func.return %yf : tensor<1x2x3x5xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK:       %[[A:.*]] = quant.scast %aq : {{.*}} to tensor<1x2x3x4xi8>
// CHECK-NEXT:  %[[B:.*]] = quant.scast %bq : {{.*}} to tensor<1x1x4x5xi8>
// CHECK-NEXT:  %[[INIT:.*]] = arith.constant dense<1536> : tensor<i32>
// CHECK:       %[[P:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<1x2x3x4xi8>, tensor<1x1x4x5xi8>)
// CHECK-NEXT:  ^bb0(%[[AV:.*]]: i8, %[[BV:.*]]: i8, %[[OUT:.*]]: i32):
// CHECK-NEXT:    %[[AE:.*]] = arith.extui %[[AV]] : i8 to i32
// CHECK-NEXT:    %[[BE:.*]] = arith.extui %[[BV]] : i8 to i32
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[AE]], %[[BE]] : i32
// CHECK-NEXT:    arith.addi %[[OUT]], %[[M]] : i32
// CHECK:       %[[ROWS:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<1x2x3x4xi8>) outs(%{{.*}} : tensor<1x2x3xi32>)
// CHECK:       %[[P1:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[ROWS]] : tensor<1x2x3x5xi32>, tensor<1x2x3xi32>)
// CHECK:         arith.constant 128 : i32
// CHECK:       %[[COLUMNS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]{{.*}} ins(%[[B]] : tensor<1x1x4x5xi8>) outs(%{{.*}} : tensor<1x2x5xi32>)
// CHECK:       %[[P2:.*]] = linalg.generic {{.*}} affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>{{.*}} ins(%[[P1]], %[[COLUMNS]] : tensor<1x2x3x5xi32>, tensor<1x2x5xi32>)
// CHECK:         arith.constant 3 : i32
// CHECK:       quant.scast %[[P2]] : tensor<1x2x3x5xi32> to tensor<1x2x3x5x!quant.uniform<i32<-129024:129024>:f32, 1.250000e-01>>
// CHECK-NOT:   onnx.MatMul
