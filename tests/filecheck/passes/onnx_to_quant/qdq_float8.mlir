// RUN: bitfold-opt %s -p onnx-to-quant | filecheck %s
// float8 QuantizeLinear -> DequantizeLinear becomes qcast -> dcast with float storage (saturating,
// the zero zero point dropped), per axis where the scale is.

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = "onnx.Constant"() {value = dense<[0.5, 0.25, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %zp = "onnx.Constant"() {value = dense<0.0> : tensor<3xf8E4M3FN>} : () -> tensor<3xf8E4M3FN>
  %q = "onnx.QuantizeLinear"(%x, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf8E4M3FN>) -> tensor<2x3xf8E4M3FN>
  %d = "onnx.DequantizeLinear"(%q, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<2x3xf8E4M3FN>, tensor<3xf32>, tensor<3xf8E4M3FN>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// CHECK:      func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:   %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<f8E4M3FN:f32:1, {5.000000e-01,2.500000e-01,2.000000e+00}>>
// CHECK-NEXT:   %d = quant.dcast %q : tensor<2x3x!quant.uniform<f8E4M3FN:f32:1, {5.000000e-01,2.500000e-01,2.000000e+00}>> to tensor<2x3xf32>
// CHECK-NEXT:   func.return %{{.*}} : tensor<2x3xf32>
