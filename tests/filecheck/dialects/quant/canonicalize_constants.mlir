// RUN: bitfold-opt %s -p canonicalize --split-input-file | filecheck %s

// Every quant op on a constant folds into a constant of its result type (each op's own
// semantics computes the integers). qcast of a float constant: q = clamp(round_half_even(x / s)),
// here x / 0.5 = 0.52, -2, 1.5, 200 -> 1, -2, 2, 127 (clamped to the narrow range).
func.func @quantize_constant() -> tensor<4xf32> {
  %x = "onnx.Constant"() {value = dense<[0.26, -1.0, 0.75, 100.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>> to tensor<4xf32>
  func.return %d : tensor<4xf32>
}
// CHECK-LABEL: func.func @quantize_constant
// CHECK-NEXT:    %{{.*}} = "onnx.Constant"() {value = dense<[1, -2, 2, 127]> : tensor<4xi8>} : () -> tensor<4xi8>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %{{.*}} : tensor<4xi8> to tensor<4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
// CHECK-NEXT:    %[[D:.*]] = quant.dcast %[[Q]]
// CHECK-NEXT:    func.return %[[D]]

// -----

// QCDQ's Clip on a run-time quantized weight, as onnx-to-quant meets it: the full-range int8
// constant, then a requant to the narrow range (a clamp at the same scale): -128 -> -127.
func.func @requantize_constant() -> tensor<3xf32> {
  %c = "onnx.Constant"() {value = dense<[-128, 5, 127]> : tensor<3xi8>} : () -> tensor<3xi8>
  %w = quant.scast %c : tensor<3xi8> to tensor<3x!quant.uniform<i8:f32, 0.25>>
  %n = quant.requant %w : tensor<3x!quant.uniform<i8:f32, 0.25>> to tensor<3x!quant.uniform<i8<-127:127>:f32, 0.25>>
  %d = quant.dcast %n : tensor<3x!quant.uniform<i8<-127:127>:f32, 0.25>> to tensor<3xf32>
  func.return %d : tensor<3xf32>
}
// CHECK-LABEL: func.func @requantize_constant
// CHECK-NEXT:    %{{.*}} = "onnx.Constant"() {value = dense<[-127, 5, 127]> : tensor<3xi8>} : () -> tensor<3xi8>
// CHECK-NEXT:    %[[N:.*]] = quant.scast %{{.*}} : tensor<3xi8> to tensor<3x!quant.uniform<i8<-127:127>:f32, 2.500000e-01>>
// CHECK-NEXT:    %[[D:.*]] = quant.dcast %[[N]]
// CHECK-NEXT:    func.return %[[D]]

// -----

// A chain of requants on a constant folds to one constant. 0.25 -> 0.5 halves q, rounding half
// to even: 3, -5, 7 -> 1.5, -2.5, 3.5 -> 2, -2, 4; then 0.5 -> 1.0 with a 4-bit narrow result:
// 1, -1, 2.
func.func @requantize_chain() -> tensor<3xf32> {
  %c = "onnx.Constant"() {value = dense<[3, -5, 7]> : tensor<3xi8>} : () -> tensor<3xi8>
  %w = quant.scast %c : tensor<3xi8> to tensor<3x!quant.uniform<i8:f32, 0.25>>
  %h = quant.requant %w : tensor<3x!quant.uniform<i8:f32, 0.25>> to tensor<3x!quant.uniform<i8:f32, 0.5>>
  %n = quant.requant %h : tensor<3x!quant.uniform<i8:f32, 0.5>> to tensor<3x!quant.uniform<i4<-7:7>:f32, 1.0>>
  %d = quant.dcast %n : tensor<3x!quant.uniform<i4<-7:7>:f32, 1.0>> to tensor<3xf32>
  func.return %d : tensor<3xf32>
}
// CHECK-LABEL: func.func @requantize_chain
// CHECK-NEXT:    %{{.*}} = "onnx.Constant"() {value = dense<[1, -1, 2]> : tensor<3xi4>} : () -> tensor<3xi4>
// CHECK-NEXT:    %[[N:.*]] = quant.scast %{{.*}} : tensor<3xi4> to tensor<3x!quant.uniform<i4<-7:7>:f32, 1.000000e+00>>
// CHECK-NEXT:    %[[D:.*]] = quant.dcast %[[N]]
// CHECK-NEXT:    func.return %[[D]]

// -----

// Bipolar quantization of a constant: q = +1 where x >= 0 (-0.0 included), stored as the bit
// (q + 1) / 2.
func.func @bipolar_constant() -> tensor<3xf32> {
  %x = "onnx.Constant"() {value = dense<[0.5, -0.0, -2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %q = quant.qcast %x : tensor<3xf32> to tensor<3x!quant.bipolar<f32, 0.5>>
  %d = quant.dcast %q : tensor<3x!quant.bipolar<f32, 0.5>> to tensor<3xf32>
  func.return %d : tensor<3xf32>
}
// CHECK-LABEL: func.func @bipolar_constant
// CHECK-NEXT:    %{{.*}} = "onnx.Constant"() {value = dense<[true, true, false]> : tensor<3xi1>} : () -> tensor<3xi1>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %{{.*}} : tensor<3xi1> to tensor<3x!quant.bipolar<f32, 5.000000e-01>>
// CHECK-NEXT:    %[[D:.*]] = quant.dcast %[[Q]]
// CHECK-NEXT:    func.return %[[D]]

// -----

// A quantized constant read as integers of another type: the integer constant itself. The bits
// 0xff, 0x05 are u8 values 255, 5.
func.func @storage_cast_constant() -> tensor<2xui8> {
  %c = "onnx.Constant"() {value = dense<[-1, 5]> : tensor<2xi8>} : () -> tensor<2xi8>
  %q = quant.scast %c : tensor<2xi8> to tensor<2x!quant.uniform<u8:f32, 0.5:128>>
  %u = quant.scast %q : tensor<2x!quant.uniform<u8:f32, 0.5:128>> to tensor<2xui8>
  func.return %u : tensor<2xui8>
}
// CHECK-LABEL: func.func @storage_cast_constant
// CHECK-NEXT:    %[[U:.*]] = "onnx.Constant"() {value = dense<[255, 5]> : tensor<2xui8>} : () -> tensor<2xui8>
// CHECK-NEXT:    func.return %[[U]]

// -----

// dcast of a constant is how a model reads a quantized weight: kept.
func.func @dequantize_constant_kept() -> tensor<2xf32> {
  %c = "onnx.Constant"() {value = dense<[-1, 5]> : tensor<2xi8>} : () -> tensor<2xi8>
  %q = quant.scast %c : tensor<2xi8> to tensor<2x!quant.uniform<i8:f32, 0.5>>
  %d = quant.dcast %q : tensor<2x!quant.uniform<i8:f32, 0.5>> to tensor<2xf32>
  func.return %d : tensor<2xf32>
}
// CHECK-LABEL: func.func @dequantize_constant_kept
// CHECK-NEXT:    %c = "onnx.Constant"() {value = dense<[-1, 5]> : tensor<2xi8>} : () -> tensor<2xi8>
// CHECK-NEXT:    %q = quant.scast %c
// CHECK-NEXT:    %d = quant.dcast %q
// CHECK-NEXT:    func.return %d

// -----

// A quantized constant quantized again to another type: one constant of that type. The dcast
// gives 1.5, -0.5, 3.0 (q * 0.5); qcast at 1.0, half to even: 2, -0, 3.
func.func @quantize_dequantized_constant() -> tensor<3xf32> {
  %c = "onnx.Constant"() {value = dense<[3, -1, 6]> : tensor<3xi8>} : () -> tensor<3xi8>
  %w = quant.scast %c : tensor<3xi8> to tensor<3x!quant.uniform<i8:f32, 0.5>>
  %f = quant.dcast %w : tensor<3x!quant.uniform<i8:f32, 0.5>> to tensor<3xf32>
  %q = quant.qcast %f : tensor<3xf32> to tensor<3x!quant.uniform<i4:f32, 1.0>>
  %d = quant.dcast %q : tensor<3x!quant.uniform<i4:f32, 1.0>> to tensor<3xf32>
  func.return %d : tensor<3xf32>
}
// CHECK-LABEL: func.func @quantize_dequantized_constant
// CHECK-NEXT:    %{{.*}} = "onnx.Constant"() {value = dense<[2, 0, 3]> : tensor<3xi4>} : () -> tensor<3xi4>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %{{.*}} : tensor<3xi4> to tensor<3x!quant.uniform<i4:f32, 1.000000e+00>>
// CHECK-NEXT:    %[[D:.*]] = quant.dcast %[[Q]]
// CHECK-NEXT:    func.return %[[D]]
