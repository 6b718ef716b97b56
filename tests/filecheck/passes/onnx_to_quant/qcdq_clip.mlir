// RUN: bitfold-opt %s -p onnx-to-quant | filecheck %s
// QCDQ: an int8 Clip(-8, 7) between Q and DQ narrows the qcast's type to canonical i4.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zp = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %lo = "onnx.Constant"() {value = dense<-8> : tensor<i8>} : () -> tensor<i8>
  %hi = "onnx.Constant"() {value = dense<7> : tensor<i8>} : () -> tensor<i8>
  %q = "onnx.QuantizeLinear"(%x, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %c = "onnx.Clip"(%q, %lo, %hi) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4xi8>, tensor<i8>, tensor<i8>) -> tensor<4xi8>
  %d = "onnx.DequantizeLinear"(%c, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// CHECK:      func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %{{.*}} = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i4:f32, 5.000000e-01>>
// CHECK-NEXT:   %{{.*}} = quant.dcast %{{.*}} : tensor<4x!quant.uniform<i4:f32, 5.000000e-01>> to tensor<4xf32>
// CHECK-NEXT:   func.return %{{.*}} : tensor<4xf32>
