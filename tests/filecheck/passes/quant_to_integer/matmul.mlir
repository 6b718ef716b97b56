// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// MatMul (2x3x4) @ (4x2), batch loop d0, i = d1, j = d2 | k = d3. B has zp = 1, so the constant
// is w' = w - 1, transposed to channel (j) first: [[0, 2, 4, 6], [1, 3, 5, 7]] (sums 12, 16).
// zp_a = 3: init = -3 * [12, 16] = [-36, -48], broadcast along the last result axis (d2).
// |acc| <= max(36 + 255 * 12, 48 + 255 * 16) = 4128; S = 0.5 * 0.5 = 0.25.

func.func @matmul(%a: tensor<2x3x4xf32>) -> tensor<2x3x2xf32> {
  %aq = quant.qcast %a : tensor<2x3x4xf32> to tensor<2x3x4x!quant.uniform<u8:f32, 0.5:3>>
  %af = quant.dcast %aq : tensor<2x3x4x!quant.uniform<u8:f32, 0.5:3>> to tensor<2x3x4xf32>
  %c = "onnx.Constant"() {value = dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>} : () -> tensor<4x2xi8>
  %bq = quant.scast %c : tensor<4x2xi8> to tensor<4x2x!quant.uniform<i8:f32, 0.5:1>>
  %b = quant.dcast %bq : tensor<4x2x!quant.uniform<i8:f32, 0.5:1>> to tensor<4x2xf32>
  %y = "onnx.MatMul"(%af, %b) : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x2xf32> loc("mm")
  %yq = quant.qcast %y : tensor<2x3x2xf32> to tensor<2x3x2x!quant.uniform<i8:f32, 2.0>>
  %yf = quant.dcast %yq : tensor<2x3x2x!quant.uniform<i8:f32, 2.0>> to tensor<2x3x2xf32>
  func.return %yf : tensor<2x3x2xf32>
}

// CHECK:      %[[A:.*]] = quant.scast %aq : tensor<2x3x4x!quant.uniform<u8:f32, 5.000000e-01:3>> to tensor<2x3x4xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{\[\[}}0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<[-36, -48]> : tensor<2xi32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3x2xi32>
// CHECK-NEXT: %[[FILLED:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[INIT]] : tensor<2xi32>) outs(%[[E]] : tensor<2x3x2xi32>) {
// CHECK:      %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[W]] : tensor<2x3x4xi8>, tensor<2x4xi8>) outs(%[[FILLED]] : tensor<2x3x2xi32>) {
// CHECK-NEXT: ^bb0(%[[XV:.*]]: i8, %[[WV:.*]]: i8, %[[OUT:.*]]: i32):
// CHECK-NEXT:   %[[XE:.*]] = arith.extui %[[XV]] : i8 to i32
// CHECK-NEXT:   %[[WE:.*]] = arith.extsi %[[WV]] : i8 to i32
// CHECK-NEXT:   %[[P:.*]] = arith.muli %[[XE]], %[[WE]] : i32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addi %[[OUT]], %[[P]] : i32
// CHECK-NEXT:   linalg.yield %[[SUM]] : i32
// CHECK-NEXT: } -> tensor<2x3x2xi32>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[ACC]] : tensor<2x3x2xi32> to tensor<2x3x2x!quant.uniform<i32<-4128:4128>:f32, 2.500000e-01>>
// CHECK-NEXT: %yq = quant.requant %[[Q]] : tensor<2x3x2x!quant.uniform<i32<-4128:4128>:f32, 2.500000e-01>> to tensor<2x3x2x!quant.uniform<i8:f32, 2.000000e+00>>
