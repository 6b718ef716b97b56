// RUN: bitfold-opt %s -p onnx-to-quant,canonicalize | filecheck %s

// com.microsoft QLinearGlobalAveragePool: dcast, a float GlobalAveragePool, a qcast.

builtin.module attributes {onnx.opset = 13 : i64} {
  func.func @qlinear_gap(%x: tensor<1x2x3x3xui8> {onnx.name = "x"}) -> (tensor<1x2x1x1xui8> {onnx.name = "y"}) {
    %x_s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
    %x_zp = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
    %y_s = "onnx.Constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
    %y_zp = "onnx.Constant"() {value = dense<100> : tensor<ui8>} : () -> tensor<ui8>
    %y = "onnx.QLinearGlobalAveragePool"(%x, %x_s, %x_zp, %y_s, %y_zp) {channels_last = 0 : i64} : (tensor<1x2x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x1x1xui8>
    func.return %y : tensor<1x2x1x1xui8>
  }
}

// CHECK:      func.func @qlinear_gap(%x: tensor<1x2x3x3xui8> {onnx.name = "x"}) -> (tensor<1x2x1x1xui8> {onnx.name = "y"}) {
// CHECK-NEXT: %[[SCAST1:[a-z0-9_]+]] = quant.scast %x : tensor<1x2x3x3xui8> to tensor<1x2x3x3x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT: %[[DCAST1:[a-z0-9_]+]] = quant.dcast %[[SCAST1]] : tensor<1x2x3x3x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<1x2x3x3xf32>
// CHECK-NEXT: %[[GLOBALAVERAGEPOOL1:[a-z0-9_]+]] = "onnx.GlobalAveragePool"(%[[DCAST1]]) : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
// CHECK-NEXT: %[[QCAST1:[a-z0-9_]+]] = quant.qcast %[[GLOBALAVERAGEPOOL1]] : tensor<1x2x1x1xf32> to tensor<1x2x1x1x!quant.uniform<u8:f32, 2.500000e-01:100>>
// CHECK-NEXT: %[[SCAST2:[a-z0-9_]+]] = quant.scast %[[QCAST1]] : tensor<1x2x1x1x!quant.uniform<u8:f32, 2.500000e-01:100>> to tensor<1x2x1x1xui8>
// CHECK-NEXT: func.return %[[SCAST2]] : tensor<1x2x1x1xui8>
// CHECK-NEXT: }
