// RUN: bitfold-opt %s -p onnx-to-quant,canonicalize | filecheck %s

// QLinearConv (depthwise, per-channel weights, int32 bias): dcast of x and w, the bias as a
// constant of type !quant.uniform<i32:f32:0, {s_x * s_w}>, a float Conv, a qcast of the result.

builtin.module attributes {onnx.opset = 13 : i64} {
  func.func @qlinear_conv(%x: tensor<1x2x3x3xui8> {onnx.name = "x"}) -> (tensor<1x2x3x3xui8> {onnx.name = "y"}) {
    %x_s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
    %x_zp = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
    %w = "onnx.Constant"() {value = dense<[[[[-9, -8, -7], [-6, -5, -4], [-3, -2, -1]]], [[[0, 1, 2], [3, 4, 5], [6, 7, 8]]]]> : tensor<2x1x3x3xi8>} : () -> tensor<2x1x3x3xi8>
    %w_s = "onnx.Constant"() {value = dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>} : () -> tensor<2xf32>
    %w_zp = "onnx.Constant"() {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
    %y_s = "onnx.Constant"() {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %y_zp = "onnx.Constant"() {value = dense<120> : tensor<ui8>} : () -> tensor<ui8>
    %b = "onnx.Constant"() {value = dense<[10, -20]> : tensor<2xi32>} : () -> tensor<2xi32>
    %y = "onnx.QLinearConv"(%x, %x_s, %x_zp, %w, %w_s, %w_zp, %y_s, %y_zp, %b) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>}> {auto_pad = "NOTSET", group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x3x3xui8>
    func.return %y : tensor<1x2x3x3xui8>
  }
}

// CHECK:      func.func @qlinear_conv(%x: tensor<1x2x3x3xui8> {onnx.name = "x"}) -> (tensor<1x2x3x3xui8> {onnx.name = "y"}) {
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = "onnx.Constant"() {value = dense<{{.*}}> : tensor<2x1x3x3xi8>} : () -> tensor<2x1x3x3xi8>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = "onnx.Constant"() {value = dense<[10, -20]> : tensor<2xi32>} : () -> tensor<2xi32>
// CHECK-NEXT: %[[SCAST1:[a-z0-9_]+]] = quant.scast %x : tensor<1x2x3x3xui8> to tensor<1x2x3x3x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %[[DCAST1:[a-z0-9_]+]] = quant.dcast %[[SCAST1]] : tensor<1x2x3x3x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<1x2x3x3xf32>
// CHECK-NEXT: %[[SCAST2:[a-z0-9_]+]] = quant.scast %[[W]] : tensor<2x1x3x3xi8> to tensor<2x1x3x3x!quant.uniform<i8:f32:0, {2.500000e-01,1.250000e-01}>>
// CHECK-NEXT: %[[DCAST2:[a-z0-9_]+]] = quant.dcast %[[SCAST2]] : tensor<2x1x3x3x!quant.uniform<i8:f32:0, {2.500000e-01,1.250000e-01}>> to tensor<2x1x3x3xf32>
// CHECK-NEXT: %[[SCAST3:[a-z0-9_]+]] = quant.scast %[[B]] : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {1.250000e-01,6.250000e-02}>>
// CHECK-NEXT: %[[DCAST3:[a-z0-9_]+]] = quant.dcast %[[SCAST3]] : tensor<2x!quant.uniform<i32:f32:0, {1.250000e-01,6.250000e-02}>> to tensor<2xf32>
// CHECK-NEXT: %[[CONV1:[a-z0-9_]+]] = "onnx.Conv"(%[[DCAST1]], %[[DCAST2]], %[[DCAST3]]) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {auto_pad = "NOTSET", group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT: %[[QCAST1:[a-z0-9_]+]] = quant.qcast %[[CONV1]] : tensor<1x2x3x3xf32> to tensor<1x2x3x3x!quant.uniform<u8:f32, 2.000000e+00:120>>
// CHECK-NEXT: %[[SCAST4:[a-z0-9_]+]] = quant.scast %[[QCAST1]] : tensor<1x2x3x3x!quant.uniform<u8:f32, 2.000000e+00:120>> to tensor<1x2x3x3xui8>
// CHECK-NEXT: func.return %[[SCAST4]] : tensor<1x2x3x3xui8>
// CHECK-NEXT: }
