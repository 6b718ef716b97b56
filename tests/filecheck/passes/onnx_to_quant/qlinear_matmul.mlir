// RUN: bitfold-opt %s -p onnx-to-quant,canonicalize | filecheck %s

// QOp: QLinearMatMul becomes dcast of each integer input (types from its scale / zero point
// constants), a float MatMul and a qcast to the output's type; the parameter constants go.

builtin.module attributes {onnx.opset = 13 : i64} {
  func.func @qlinear_matmul(%a: tensor<2x3xui8> {onnx.name = "a"}) -> (tensor<2x2xui8> {onnx.name = "y"}) {
    %a_s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
    %a_zp = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
    %b = "onnx.Constant"() {value = dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>} : () -> tensor<3x2xi8>
    %b_s = "onnx.Constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
    %b_zp = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
    %y_s = "onnx.Constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %y_zp = "onnx.Constant"() {value = dense<100> : tensor<ui8>} : () -> tensor<ui8>
    %y = "onnx.QLinearMatMul"(%a, %a_s, %a_zp, %b, %b_s, %b_zp, %y_s, %y_zp) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<2x2xui8>
    func.return %y : tensor<2x2xui8>
  }
}

// CHECK:      func.func @qlinear_matmul(%a: tensor<2x3xui8> {onnx.name = "a"}) -> (tensor<2x2xui8> {onnx.name = "y"}) {
// CHECK-NEXT:   %b = "onnx.Constant"() {value = dense<{{\[\[}}1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>} : () -> tensor<3x2xi8>
// CHECK-NEXT:   %y = quant.scast %a : tensor<2x3xui8> to tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT:   %y_1 = quant.dcast %y : tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<2x3xf32>
// CHECK-NEXT:   %y_2 = quant.scast %b : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK-NEXT:   %y_3 = quant.dcast %y_2 : tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>> to tensor<3x2xf32>
// CHECK-NEXT:   %y_4 = "onnx.MatMul"(%y_1, %y_3) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:   %y_5 = quant.qcast %y_4 : tensor<2x2xf32> to tensor<2x2x!quant.uniform<u8:f32, 1.000000e+00:100>>
// CHECK-NEXT:   %y_6 = quant.scast %y_5 : tensor<2x2x!quant.uniform<u8:f32, 1.000000e+00:100>> to tensor<2x2xui8>
// CHECK-NEXT:   func.return %y_6 : tensor<2x2xui8>
