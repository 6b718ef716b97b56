// RUN: bitfold-opt %s -p onnx-to-integer | filecheck %s
// RUN: bitfold-opt %s -p onnx-to-integer | filecheck %s --check-prefix=NOQUANT

// The named pipeline onnx-to-quant, canonicalize-quant, quant-to-integer, lower-quant on a QDQ
// MatMul + Relu in ONNX form: no quant op or type remains; only the input qcast and the output
// dcast compute in float. x: u8 (0.5, zp 10); w' = w (zp 0) transposed: [[1, 3, -5], [-2, 4, 6]]
// (sums -1, 8), init = -10 * [-1, 8] = [10, -80]; |acc| <= max(10 + 255 * 9, 80 + 255 * 12) = 3140
// at S = 0.5 * 0.25 = 0.125; Relu clamps the accumulator to [0, 3140]; the output scale 0.125
// equals S, so the requant is + zp (10) and the u8 clamp.

func.func @qdq_matmul(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  %s = "onnx.Constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<10> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "onnx.Constant"() {value = dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>} : () -> tensor<3x2xi8>
  %ws = "onnx.Constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
  %so = "onnx.Constant"() {value = dense<1.250000e-01> : tensor<f32>} : () -> tensor<f32>
  %xq = "onnx.QuantizeLinear"(%x, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<1x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3xui8> loc("quantize")
  %xd = "onnx.DequantizeLinear"(%xq, %s, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<1x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3xf32> loc("dequantize")
  %w = "onnx.DequantizeLinear"(%wq, %ws) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<3x2xi8>, tensor<f32>) -> tensor<3x2xf32> loc("weights")
  %mm = "onnx.MatMul"(%xd, %w) : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32> loc("matmul")
  %r = "onnx.Relu"(%mm) : (tensor<1x2xf32>) -> tensor<1x2xf32> loc("relu")
  %yq = "onnx.QuantizeLinear"(%r, %so, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64, precision = 0 : i64, saturate = 1 : i64} : (tensor<1x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2xui8> loc("quantize_out")
  %y = "onnx.DequantizeLinear"(%yq, %so, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> {axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64} : (tensor<1x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2xf32> loc("dequantize_out")
  func.return %y : tensor<1x2xf32>
}

// CHECK:      %xq = linalg.generic {{.*}} ins(%x : tensor<1x3xf32>) outs(%{{.*}} : tensor<1x3xi8>) {
// CHECK:        arith.constant 0x4B000000 : f32
// CHECK:      } -> tensor<1x3xi8>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{\[\[}}1, 3, -5], [-2, 4, 6]]> : tensor<2x3xi8>
// CHECK-NEXT: %[[INIT:.*]] = arith.constant dense<[10, -80]> : tensor<2xi32>
// CHECK:      %[[ACC:.*]] = linalg.generic {{.*}} ins(%xq, %[[W]] : tensor<1x3xi8>, tensor<2x3xi8>) outs(%{{.*}} : tensor<1x2xi32>) {
// CHECK:      %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<1x2xi32>) outs(%{{.*}} : tensor<1x2xi32>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[HI:.*]] = arith.constant 3140 : i32
// CHECK-NEXT:   %[[A:.*]] = arith.maxsi %[[V]], %[[LO]] : i32
// CHECK-NEXT:   %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : i32
// CHECK-NEXT:   linalg.yield %[[B]] : i32
// CHECK-NEXT: } -> tensor<1x2xi32>
// CHECK:      %yq = linalg.generic {{.*}} ins(%[[RELU]] : tensor<1x2xi32>) outs(%{{.*}} : tensor<1x2xi8>) {
// CHECK:      %y = linalg.generic {{.*}} ins(%yq : tensor<1x2xi8>) outs(%{{.*}} : tensor<1x2xf32>) {
// CHECK:      func.return %y : tensor<1x2xf32>

// NOQUANT-NOT: quant
// NOQUANT:     func.return
// NOQUANT-NOT: quant
