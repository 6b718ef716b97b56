// RUN: bitfold-opt %s -p onnx-to-quant,canonicalize | filecheck %s

// com.microsoft QLinearAdd: dcast of both inputs, a float Add, a qcast to C's type.

builtin.module attributes {onnx.opset = 13 : i64} {
  func.func @qlinear_add(%a: tensor<2x3xui8> {onnx.name = "a"}, %b: tensor<2x3xui8> {onnx.name = "b"}) -> (tensor<2x3xui8> {onnx.name = "c"}) {
    %a_s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
    %a_zp = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
    %b_s = "onnx.Constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
    %b_zp = "onnx.Constant"() {value = dense<100> : tensor<ui8>} : () -> tensor<ui8>
    %c_s = "onnx.Constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %c_zp = "onnx.Constant"() {value = dense<110> : tensor<ui8>} : () -> tensor<ui8>
    %c = "onnx.QLinearAdd"(%a, %a_s, %a_zp, %b, %b_s, %b_zp, %c_s, %c_zp) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>}> : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
    func.return %c : tensor<2x3xui8>
  }
}

// CHECK:      func.func @qlinear_add(%a: tensor<2x3xui8> {onnx.name = "a"}, %b: tensor<2x3xui8> {onnx.name = "b"}) -> (tensor<2x3xui8> {onnx.name = "c"}) {
// CHECK-NEXT: %[[SCAST1:[a-z0-9_]+]] = quant.scast %a : tensor<2x3xui8> to tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %[[DCAST1:[a-z0-9_]+]] = quant.dcast %[[SCAST1]] : tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<2x3xf32>
// CHECK-NEXT: %[[SCAST2:[a-z0-9_]+]] = quant.scast %b : tensor<2x3xui8> to tensor<2x3x!quant.uniform<u8:f32, 2.500000e-01:100>>
// CHECK-NEXT: %[[DCAST2:[a-z0-9_]+]] = quant.dcast %[[SCAST2]] : tensor<2x3x!quant.uniform<u8:f32, 2.500000e-01:100>> to tensor<2x3xf32>
// CHECK-NEXT: %[[ADD1:[a-z0-9_]+]] = "onnx.Add"(%[[DCAST1]], %[[DCAST2]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[QCAST1:[a-z0-9_]+]] = quant.qcast %[[ADD1]] : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 1.000000e+00:110>>
// CHECK-NEXT: %[[SCAST3:[a-z0-9_]+]] = quant.scast %[[QCAST1]] : tensor<2x3x!quant.uniform<u8:f32, 1.000000e+00:110>> to tensor<2x3xui8>
// CHECK-NEXT: func.return %[[SCAST3]] : tensor<2x3xui8>
// CHECK-NEXT: }
