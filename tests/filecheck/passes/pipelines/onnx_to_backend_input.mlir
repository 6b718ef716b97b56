// RUN: bitfold-opt %s -p onnx-to-backend-input | filecheck %s

// The named pipeline onnx-to-integer with integer-io on (its default here), then
// onnx-data-movement-to-linalg: a QDQ Transpose (u8, 0.5, zp 10 on both sides) becomes a function
// of the storage integers (the quant type on each port) whose only op is the permuting generic; no
// onnx op, no float remains (onnx-to-integer alone keeps the onnx.Transpose between the casts).

func.func @qdq_transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<10> : tensor<ui8>} : () -> tensor<ui8>
  %xq = "onnx.QuantizeLinear"(%x, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  %xd = "onnx.DequantizeLinear"(%xq, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %t = "onnx.Transpose"(%xd) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %yq = "onnx.QuantizeLinear"(%t, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<3x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
  %y = "onnx.DequantizeLinear"(%yq, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// CHECK:      func.func @qdq_transpose(%x: tensor<2x3xi8> {quant.type = "!quant.uniform<u8:f32, 5.000000e-01:10>"}) -> (tensor<3x2xi8> {quant.type = "!quant.uniform<u8:f32, 5.000000e-01:10>"}) {
// CHECK-NEXT:   %0 = tensor.empty() : tensor<3x2xi8>
// CHECK-NEXT:   %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xi8>) outs(%0 : tensor<3x2xi8>) {
// CHECK-NEXT:   ^bb0(%1: i8, %2: i8):
// CHECK-NEXT:     linalg.yield %1 : i8
// CHECK-NEXT:   } -> tensor<3x2xi8>
// CHECK-NEXT:   func.return %t : tensor<3x2xi8>
// CHECK-NEXT: }
