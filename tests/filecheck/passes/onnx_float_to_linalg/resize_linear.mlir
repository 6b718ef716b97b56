// RUN: bitfold-opt %s -p onnx-float-to-linalg | filecheck %s

// Resize linear 2x along the last axis (half_pixel) of a 1x2 tensor (axis 0, scale 1, is left
// as it is): output o at coordinate -0.25, 0.25, 0.75, 1.25 clamped to [0, 1] reads the taps
// i[o] = (0 1), (0 1), (0 1), (1 1) weighted w[o] = (1 0), (0.75 0.25), (0.25 0.75), (1 0); a
// generic over the output and the taps (reduction) from 0.0: acc + w * x[i].

func.func @resize(%x: tensor<1x2xf32>) -> tensor<1x4xf32> {
  %scales = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "onnx.Resize"(%x, %scales) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>}> {antialias = 0 : i64, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "round_prefer_floor"} : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x4xf32> loc("resize")
  func.return %y : tensor<1x4xf32>
}

// CHECK:      %[[INDICES:.*]] = arith.constant dense<{{\[\[}}0, 1], [0, 1], [0, 1], [1, 1]]> : tensor<4x2xi32>
// CHECK-NEXT: %[[WEIGHTS:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [7.500000e-01, 2.500000e-01], [2.500000e-01, 7.500000e-01], [1.000000e+00, 0.000000e+00]]> : tensor<4x2xf32>
// CHECK:      %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[INDICES]], %[[WEIGHTS]] : tensor<4x2xi32>, tensor<4x2xf32>)
// CHECK-NEXT: ^{{.*}}(%[[I:.*]]: i32, %[[W:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:   %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:   %{{.*}} = linalg.index 1 : index
// CHECK-NEXT:   %[[COLUMN:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:   %[[X:.*]] = tensor.extract %x[%[[D0]], %[[COLUMN]]] : tensor<1x2xf32>
// CHECK-NEXT:   %[[P:.*]] = arith.mulf %[[W]], %[[X]] : f32
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:   linalg.yield %[[S]] : f32
