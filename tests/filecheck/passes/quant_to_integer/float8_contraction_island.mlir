// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// A MatMul on dequantized float8 values has no integer form (the stored bits are no integers
// to multiply): it stays float, an island between the dcasts and the qcast.

func.func @matmul(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %xq = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<f8E4M3FN:f32, 0.5>>
  %xd = quant.dcast %xq : tensor<2x3x!quant.uniform<f8E4M3FN:f32, 0.5>> to tensor<2x3xf32>
  %w = "onnx.Constant"() {value = dense<[[1.0, -2.0], [0.5, 4.0], [3.0, 0.25]]> : tensor<3x2xf8E4M3FN>} : () -> tensor<3x2xf8E4M3FN>
  %ws = quant.scast %w : tensor<3x2xf8E4M3FN> to tensor<3x2x!quant.uniform<f8E4M3FN:f32, 0.125>>
  %wd = quant.dcast %ws : tensor<3x2x!quant.uniform<f8E4M3FN:f32, 0.125>> to tensor<3x2xf32>
  %y = "onnx.MatMul"(%xd, %wd) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %yq = quant.qcast %y : tensor<2x2xf32> to tensor<2x2x!quant.uniform<i8:f32, 0.1>>
  %yd = quant.dcast %yq : tensor<2x2x!quant.uniform<i8:f32, 0.1>> to tensor<2x2xf32>
  func.return %yd : tensor<2x2xf32>
}

// CHECK:      func.func @matmul(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
// CHECK:        %{{.*}} = quant.dcast %{{.*}} : tensor<2x3x!quant.uniform<f8E4M3FN:f32, 5.000000e-01>> to tensor<2x3xf32>
// CHECK:        %{{.*}} = quant.dcast %{{.*}} : tensor<3x2x!quant.uniform<f8E4M3FN:f32, 1.250000e-01>> to tensor<3x2xf32>
// CHECK:        %{{.*}} = "onnx.MatMul"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
// CHECK-NOT:    linalg.generic
// CHECK:        quant.qcast
