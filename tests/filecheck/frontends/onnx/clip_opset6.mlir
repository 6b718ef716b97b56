// RUN: bitfold-opt %S/Inputs/clip_opset6.onnx | filecheck %s

// Clip of opset 6 holds its bounds as attributes; the importer upgrades it to the newest
// signature, where they are operands, by materialising constants of the input's type.

// CHECK:      %clipped.min = "onnx.Constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
// CHECK-NEXT: %clipped.max = "onnx.Constant"() {value = dense<6.000000e+00> : tensor<f32>} : () -> tensor<f32>
// CHECK-NEXT: %clipped = "onnx.Clip"(%x, %clipped.min, %clipped.max) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %q = "onnx.QuantizeLinear"(%clipped, %scale, %zero_point)
