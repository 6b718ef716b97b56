// RUN: bitfold-opt %s -p onnx-to-quant,canonicalize | filecheck %s

// com.microsoft QGemm (transB, bias): dcast of a and b, the bias as an i32 constant at scale
// alpha * s_a * s_b, a float Gemm, a qcast of the result.

builtin.module attributes {onnx.opset = 13 : i64} {
  func.func @qgemm(%a: tensor<2x3xui8> {onnx.name = "a"}) -> (tensor<2x2xui8> {onnx.name = "y"}) {
    %a_s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
    %a_zp = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
    %b = "onnx.Constant"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>} : () -> tensor<2x3xi8>
    %b_s = "onnx.Constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
    %b_zp = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
    %c = "onnx.Constant"() {value = dense<[7, -7]> : tensor<2xi32>} : () -> tensor<2xi32>
    %y_s = "onnx.Constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %y_zp = "onnx.Constant"() {value = dense<100> : tensor<ui8>} : () -> tensor<ui8>
    %y = "onnx.QGemm"(%a, %a_s, %a_zp, %b, %b_s, %b_zp, %c, %y_s, %y_zp) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>}> {alpha = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x3xi8>, tensor<f32>, tensor<i8>, tensor<2xi32>, tensor<f32>, tensor<ui8>) -> tensor<2x2xui8>
    func.return %y : tensor<2x2xui8>
  }
}

// CHECK:      func.func @qgemm(%a: tensor<2x3xui8> {onnx.name = "a"}) -> (tensor<2x2xui8> {onnx.name = "y"}) {
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = "onnx.Constant"() {value = dense<{{.*}}> : tensor<2x3xi8>} : () -> tensor<2x3xi8>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = "onnx.Constant"() {value = dense<[7, -7]> : tensor<2xi32>} : () -> tensor<2xi32>
// CHECK-NEXT: %[[SCAST1:[a-z0-9_]+]] = quant.scast %a : tensor<2x3xui8> to tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %[[DCAST1:[a-z0-9_]+]] = quant.dcast %[[SCAST1]] : tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<2x3xf32>
// CHECK-NEXT: %[[SCAST2:[a-z0-9_]+]] = quant.scast %[[B]] : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK-NEXT: %[[DCAST2:[a-z0-9_]+]] = quant.dcast %[[SCAST2]] : tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>> to tensor<2x3xf32>
// CHECK-NEXT: %[[SCAST3:[a-z0-9_]+]] = quant.scast %[[C]] : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32, 1.250000e-01>>
// CHECK-NEXT: %[[DCAST3:[a-z0-9_]+]] = quant.dcast %[[SCAST3]] : tensor<2x!quant.uniform<i32:f32, 1.250000e-01>> to tensor<2xf32>
// CHECK-NEXT: %[[GEMM1:[a-z0-9_]+]] = "onnx.Gemm"(%[[DCAST1]], %[[DCAST2]], %[[DCAST3]]) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {alpha = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64, beta = 1.000000e+00 : f32} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: %[[QCAST1:[a-z0-9_]+]] = quant.qcast %[[GEMM1]] : tensor<2x2xf32> to tensor<2x2x!quant.uniform<u8:f32, 1.000000e+00:100>>
// CHECK-NEXT: %[[SCAST4:[a-z0-9_]+]] = quant.scast %[[QCAST1]] : tensor<2x2x!quant.uniform<u8:f32, 1.000000e+00:100>> to tensor<2x2xui8>
// CHECK-NEXT: func.return %[[SCAST4]] : tensor<2x2xui8>
// CHECK-NEXT: }
