// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Resize linear 2x (half_pixel) of 1x2 stored values at scale 0.5, zero point 1: weights in
// quarters (F = 2), so acc = sum_t W[o, t] * q[i[o, t]] with W = 4 w, read at scale 0.5 / 4 and
// zero point 1 * 4, |acc| <= 4 * 128; the qcast after it becomes a requant.

func.func @resize(%xq: tensor<1x2xi8>) -> tensor<1x4xi8> {
  %scales = "onnx.Constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} : () -> tensor<2xf32>
  %xd = quant.scast %xq : tensor<1x2xi8> to tensor<1x2x!quant.uniform<i8:f32, 5.000000e-01:1>>
  %xf = quant.dcast %xd : tensor<1x2x!quant.uniform<i8:f32, 5.000000e-01:1>> to tensor<1x2xf32>
  %yf = "onnx.Resize"(%xf, %scales) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>}> {antialias = 0 : i64, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "round_prefer_floor"} : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x4xf32> loc("resize")
  %y = quant.qcast %yf : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:1>>
  %yq = quant.scast %y : tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:1>> to tensor<1x4xi8>
  func.return %yq : tensor<1x4xi8>
}

// CHECK:      %[[INDICES:.*]] = arith.constant dense<{{\[\[}}0, 1], [0, 1], [0, 1], [1, 1]]> : tensor<4x2xi32>
// CHECK-NEXT: %[[WEIGHTS:.*]] = arith.constant dense<{{\[\[}}4, 0], [3, 1], [1, 3], [4, 0]]> : tensor<4x2xi32>
// CHECK:      %[[ACC:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[INDICES]], %[[WEIGHTS]] : tensor<4x2xi32>, tensor<4x2xi32>)
// CHECK:        %[[X:.*]] = tensor.extract %xq[%{{.*}}, %{{.*}}] : tensor<1x2xi8>
// CHECK-NEXT:   %[[WIDE:.*]] = arith.extsi %[[X]] : i8 to i32
// CHECK-NEXT:   %[[P:.*]] = arith.muli %{{.*}}, %[[WIDE]] : i32
// CHECK-NEXT:   %[[S:.*]] = arith.addi %{{.*}}, %[[P]] : i32
// CHECK-NEXT:   linalg.yield %[[S]] : i32
// CHECK:      %[[Q:.*]] = quant.scast %[[ACC]] : tensor<1x4xi32> to tensor<1x4x!quant.uniform<i32<-512:512>:f32, 1.250000e-01:4>>
// CHECK-NEXT: %y = quant.requant %[[Q]] : tensor<1x4x!quant.uniform<i32<-512:512>:f32, 1.250000e-01:4>> to tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:1>>
