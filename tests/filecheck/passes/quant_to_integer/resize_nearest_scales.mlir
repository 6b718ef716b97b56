// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// A nearest Resize given float `scales` runs on the stored integers: the scales are a
// parameter of the data movement, not float computation, so the float constant may stay.
func.func @f(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %q = quant.qcast %x : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<u8:f32, 0.5:10>>
  %d = quant.dcast %q : tensor<1x1x2x2x!quant.uniform<u8:f32, 0.5:10>> to tensor<1x1x2x2xf32>
  %r = "onnx.Resize"(%d, %s) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>}> {antialias = 0 : i64, coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  %q2 = quant.qcast %r : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!quant.uniform<u8:f32, 0.5:10>>
  %d2 = quant.dcast %q2 : tensor<1x1x4x4x!quant.uniform<u8:f32, 0.5:10>> to tensor<1x1x4x4xf32>
  func.return %d2 : tensor<1x1x4x4xf32>
}
// CHECK:      %[[Q:.*]] = quant.qcast %x
// CHECK-NEXT: %[[R:.*]] = "onnx.Resize"(%[[Q]], %s) {{.*}} : (tensor<1x1x2x2x!quant.uniform<u8:f32, 5.000000e-01:10>>, tensor<4xf32>) -> tensor<1x1x4x4x!quant.uniform<u8:f32, 5.000000e-01:10>>
// CHECK-NEXT: %{{.*}} = quant.dcast %[[R]]
