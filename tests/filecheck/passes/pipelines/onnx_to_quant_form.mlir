// RUN: bitfold-opt %s -p onnx-to-quant-form | filecheck %s

// The named pipeline onnx-conv-transpose-to-conv, onnx-to-quant, canonicalize-quant on a QDQ
// MatMul + Relu in ONNX form: each QuantizeLinear / DequantizeLinear pair becomes quant.qcast /
// quant.dcast with the parameters in the type (x and the output: u8, zp 10, scales 0.5 and 0.125),
// the constant i8 weights a quant.scast of the onnx.Constant to !quant.uniform<i8:f32, 0.25>
// (zero point 0 left out), read through a dcast; MatMul and Relu stay float ONNX ops between them.

func.func @qdq_matmul(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  %s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<10> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "onnx.Constant"() {value = dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>} : () -> tensor<3x2xi8>
  %ws = "onnx.Constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
  %so = "onnx.Constant"() {value = dense<1.250000e-01> : tensor<f32>} : () -> tensor<f32>
  %xq = "onnx.QuantizeLinear"(%x, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<1x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3xui8> loc("quantize")
  %xd = "onnx.DequantizeLinear"(%xq, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<1x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3xf32> loc("dequantize")
  %w = "onnx.DequantizeLinear"(%wq, %ws) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<3x2xi8>, tensor<f32>) -> tensor<3x2xf32> loc("weights")
  %mm = "onnx.MatMul"(%xd, %w) : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32> loc("matmul")
  %r = "onnx.Relu"(%mm) : (tensor<1x2xf32>) -> tensor<1x2xf32> loc("relu")
  %yq = "onnx.QuantizeLinear"(%r, %so, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<1x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2xui8> loc("quantize_out")
  %y = "onnx.DequantizeLinear"(%yq, %so, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<1x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2xf32> loc("dequantize_out")
  func.return %y : tensor<1x2xf32>
}

// CHECK:      func.func @qdq_matmul(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
// CHECK-NEXT:   %xq = quant.qcast %x : tensor<1x3xf32> to tensor<1x3x!quant.uniform<u8:f32, 5.000000e-01:10>>
// CHECK-NEXT:   %xd = quant.dcast %xq : tensor<1x3x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<1x3xf32>
// CHECK-NEXT:   %w = "onnx.Constant"() {value = dense<{{\[\[}}1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>} : () -> tensor<3x2xi8>
// CHECK-NEXT:   %w_1 = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK-NEXT:   %w_2 = quant.dcast %w_1 : tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>> to tensor<3x2xf32>
// CHECK-NEXT:   %mm = "onnx.MatMul"(%xd, %w_2) : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:   %r = "onnx.Relu"(%mm) : (tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:   %yq = quant.qcast %r : tensor<1x2xf32> to tensor<1x2x!quant.uniform<u8:f32, 1.250000e-01:10>>
// CHECK-NEXT:   %y = quant.dcast %yq : tensor<1x2x!quant.uniform<u8:f32, 1.250000e-01:10>> to tensor<1x2xf32>
// CHECK-NEXT:   func.return %y : tensor<1x2xf32>
// CHECK-NEXT: }
