// RUN: bitfold-opt %s -p onnx-to-quant | filecheck %s
// QuantizeLinear -> DequantizeLinear becomes qcast -> dcast (the scast pair folds away).

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zp = "onnx.Constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %q = "onnx.QuantizeLinear"(%x, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  %d = "onnx.DequantizeLinear"(%q, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// CHECK:      func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 5.000000e-01:3>>
// CHECK-NEXT:   %d = quant.dcast %q : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:3>> to tensor<4xf32>
// CHECK-NEXT:   func.return %{{.*}} : tensor<4xf32>
