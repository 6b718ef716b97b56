// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A float island's float8 weights: the scast of a stored `onnx.Constant` of f8E4M3FN values
// becomes an `arith.constant` of their bit patterns (1.0 = 0x38, -2.0 = 0xC0, 0.5 = 0x30,
// 448 = 0x7E) as the signless i8 storage, which the dcast's table lookup reads.

func.func @weights() -> tensor<4xf32> {
  %w = "onnx.Constant"() {value = dense<[1.0, -2.0, 0.5, 448.0]> : tensor<4xf8E4M3FN>} : () -> tensor<4xf8E4M3FN>
  %s = quant.scast %w : tensor<4xf8E4M3FN> to tensor<4x!quant.uniform<f8E4M3FN:f32, 0.25>>
  %x = quant.dcast %s : tensor<4x!quant.uniform<f8E4M3FN:f32, 0.25>> to tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// CHECK:      func.func @weights() -> tensor<4xf32> {
// CHECK-NOT:    onnx.Constant
// CHECK:        %{{.*}} = arith.constant dense<[56, -64, 48, 126]> : tensor<4xi8>
// CHECK-NOT:    onnx.Constant
// CHECK:        linalg.generic
// CHECK:          tensor.extract
// CHECK:          arith.mulf
