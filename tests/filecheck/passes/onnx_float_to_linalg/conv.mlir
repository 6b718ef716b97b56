// RUN: bitfold-opt %s -p onnx-float-to-linalg | filecheck %s

// A grouped, padded, strided Conv on f32: the input padded with 0.0 (an onnx.Pad for
// onnx-data-movement-to-linalg), the bias broadcast per channel, then one reduction generic
// over (ci, kh, kw) accumulating mulf then addf onto the running sum.

func.func @conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[0.5, 0.25], [0.125, 1.0]]]]> : tensor<2x1x2x2xf32>} : () -> tensor<2x1x2x2xf32>
  %b = "onnx.Constant"() {value = dense<[0.5, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "onnx.Conv"(%x, %w, %b) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {auto_pad = "NOTSET", group = 2 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32> loc("conv")
  func.return %y : tensor<1x2x2x2xf32>
}

// CHECK:      %[[PADS:.*]] = arith.constant dense<[0, 0, 1, 1, 0, 0, 0, 0]> : tensor<8xi64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[XP:.*]] = "onnx.Pad"(%x, %[[PADS]], %[[ZERO]]) {{.*}} : (tensor<1x2x3x3xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<2x1x2x2xf32>
// CHECK-NEXT: %[[B:.*]] = arith.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x2x2x2xf32>
// CHECK-NEXT: %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<2xf32>) outs(%[[E]] : tensor<1x2x2x2xf32>)
// CHECK:      %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 floordiv 1) + d4), ((d2 * 2) + d5), ((d3 * 2) + d6))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XP]], %[[W]] : tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) outs(%[[INIT]] : tensor<1x2x2x2xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[WV:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:   %[[P:.*]] = arith.mulf %[[X]], %[[WV]] : f32
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:   linalg.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<1x2x2x2xf32>
// CHECK-NEXT: func.return %y : tensor<1x2x2x2xf32>
