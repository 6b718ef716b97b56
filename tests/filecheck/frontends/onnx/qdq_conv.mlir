// RUN: bitfold-opt %S/Inputs/qdq_conv.onnx --print-debuginfo | filecheck %s

// A QDQ model (Inputs/make_inputs.py): initializers become onnx.Constant ops, graph inputs the
// arguments (named after them), nodes one op each with every schema attribute (defaults filled
// for opset 13) and their node name as location, graph outputs the results with onnx.name.

// CHECK:      func.func @qdq_conv(%x: tensor<1x1x3x3xf32> {onnx.name = "x"} loc(unknown)) -> (tensor<1x2x3x3xf32> {onnx.name = "y"}) {
// CHECK-NEXT:   %x_scale = "onnx.Constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32> loc("x_scale")
// CHECK-NEXT:   %x_zero_point = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8> loc("x_zero_point")
// CHECK-NEXT:   %w_q = "onnx.Constant"() {value = dense<{{\[\[\[\[}}1, -2], [3, -4]]], {{\[\[\[}}-5, 6], [-7, 8]]]]> : tensor<2x1x2x2xi8>} : () -> tensor<2x1x2x2xi8> loc("w_q")
// CHECK-NEXT:   %w_scale = "onnx.Constant"() {value = dense<[1.000000e-02, 2.000000e-02]> : tensor<2xf32>} : () -> tensor<2xf32> loc("w_scale")
// CHECK-NEXT:   %x_q = "onnx.QuantizeLinear"(%x, %x_scale, %x_zero_point) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<1x1x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xui8> loc("quantize_x")
// CHECK-NEXT:   %x_dq = "onnx.DequantizeLinear"(%x_q, %x_scale, %x_zero_point) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<1x1x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xf32> loc("dequantize_x")
// CHECK-NEXT:   %w = "onnx.DequantizeLinear"(%w_q, %w_scale) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {axis = 0 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<2x1x2x2xi8>, tensor<2xf32>) -> tensor<2x1x2x2xf32> loc("dequantize_w")
// CHECK-NEXT:   %conv = "onnx.Conv"(%x_dq, %w) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {auto_pad = "NOTSET", group = 1 : i64, pads = array<i64: 1, 1, 0, 0>} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x3x3xf32> loc("conv")
// CHECK-NEXT:   %y = "onnx.Relu"(%conv) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> loc("relu")
// CHECK-NEXT:   func.return %y : tensor<1x2x3x3xf32>
