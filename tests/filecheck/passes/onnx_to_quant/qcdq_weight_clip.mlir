// RUN: bitfold-opt %s -p onnx-to-quant | filecheck %s
// Brevitas' QCDQ weights: a float weight quantized at run time, QuantizeLinear -> Clip(-127, 127)
// -> DequantizeLinear, becomes one integer constant of the narrow type (no requant left):
// w / 0.5 = -200, 0.5, 1.5 -> -128 (saturated by QuantizeLinear), 0, 2; the Clip makes -128 -127.

func.func @f() -> tensor<3xf32> {
  %w = "onnx.Constant"() {value = dense<[-100.0, 0.25, 0.75]> : tensor<3xf32>} : () -> tensor<3xf32>
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %zp = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %lo = "onnx.Constant"() {value = dense<-127> : tensor<i8>} : () -> tensor<i8>
  %hi = "onnx.Constant"() {value = dense<127> : tensor<i8>} : () -> tensor<i8>
  %q = "onnx.QuantizeLinear"(%w, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<3xf32>, tensor<f32>, tensor<i8>) -> tensor<3xi8>
  %c = "onnx.Clip"(%q, %lo, %hi) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<3xi8>, tensor<i8>, tensor<i8>) -> tensor<3xi8>
  %d = "onnx.DequantizeLinear"(%c, %s, %zp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<3xi8>, tensor<f32>, tensor<i8>) -> tensor<3xf32>
  func.return %d : tensor<3xf32>
}

// CHECK:      func.func @f() -> tensor<3xf32> {
// CHECK-NEXT:   %{{.*}} = "onnx.Constant"() {value = dense<[-127, 0, 2]> : tensor<3xi8>} : () -> tensor<3xi8>
// CHECK-NEXT:   %[[W:.*]] = quant.scast %{{.*}} : tensor<3xi8> to tensor<3x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
// CHECK-NEXT:   %[[D:.*]] = quant.dcast %[[W]] : tensor<3x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>> to tensor<3xf32>
// CHECK-NEXT:   func.return %[[D]] : tensor<3xf32>
// CHECK-NEXT: }
