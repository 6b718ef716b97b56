// RUN: bitfold-opt %s -p onnx-to-quant,canonicalize | filecheck %s

// QONNX Trunc v1 (domain version 1): a requant by 2^(in - out bits) between the input's type and
// an output type read back with the input's scale and zero point (v1 keeps them), between dcast
// and qcast.

builtin.module attributes {onnx.opset = 13 : i64} {
  func.func @trunc_v1(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
    %s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
    %zp = "onnx.Constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %ib = "onnx.Constant"() {value = dense<8.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %ob = "onnx.Constant"() {value = dense<4.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %y = "qonnx.Trunc_v1"(%x, %s, %zp, %ib, %ob) {rounding_mode = "FLOOR"} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// CHECK:      func.func @trunc_v1(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
// CHECK-NEXT: %[[QCAST1:[a-z0-9_]+]] = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i16<-128:255>:f32, 5.000000e-01>>
// CHECK-NEXT: %[[REQUANT1:[a-z0-9_]+]] = quant.requant %[[QCAST1]] {rounding = "floor"} : tensor<4x!quant.uniform<i16<-128:255>:f32, 5.000000e-01>> to tensor<4x!quant.uniform<i8<-8:15>:f32, 8.000000e+00>>
// CHECK-NEXT: %[[SCAST1:[a-z0-9_]+]] = quant.scast %[[REQUANT1]] : tensor<4x!quant.uniform<i8<-8:15>:f32, 8.000000e+00>> to tensor<4xi8>
// CHECK-NEXT: %[[SCAST2:[a-z0-9_]+]] = quant.scast %[[SCAST1]] : tensor<4xi8> to tensor<4x!quant.uniform<i8<-8:15>:f32, 5.000000e-01>>
// CHECK-NEXT: %[[DCAST1:[a-z0-9_]+]] = quant.dcast %[[SCAST2]] : tensor<4x!quant.uniform<i8<-8:15>:f32, 5.000000e-01>> to tensor<4xf32>
// CHECK-NEXT: func.return %[[DCAST1]] : tensor<4xf32>
// CHECK-NEXT: }
