// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Nearest Resize x2 (half_pixel, round_prefer_floor) reads index [0, 0, 1, 1, 2, 2] along
// the resized axis: no affine sequence, so an i32 table; the float scales constant goes.
func.func @f(%x: tensor<1x3xi8>) -> tensor<1x6xi8> {
  %scales = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %r = "onnx.Resize"(%x, %scales) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>}> {antialias = 0 : i64, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "round_prefer_floor"} : (tensor<1x3xi8>, tensor<2xf32>) -> tensor<1x6xi8>
  func.return %r : tensor<1x6xi8>
}
// CHECK-NOT:  onnx.Constant
// CHECK:      %[[T:.*]] = arith.constant dense<[0, 0, 1, 1, 2, 2]> : tensor<6xi32>
// CHECK:      %r = linalg.generic
// CHECK:        %[[R:.*]] = tensor.extract %[[T]][%{{.*}}] : tensor<6xi32>
// CHECK-NEXT:   %[[J:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK-NEXT:   tensor.extract %x[%{{.*}}, %[[J]]] : tensor<1x3xi8>
