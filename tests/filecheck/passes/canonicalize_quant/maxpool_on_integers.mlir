// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// MaxPool of dequantized values is the dequantized MaxPool of the stored values (dcast is
// non-decreasing); the per-axis channel dimension 1 survives.
func.func @f(%q: tensor<1x2x4x4x!quant.uniform<i8:f32:1, {0.1, 0.2:3}>>) -> tensor<1x2x2x2xf32> {
  %d = quant.dcast %q : tensor<1x2x4x4x!quant.uniform<i8:f32:1, {0.1, 0.2:3}>> to tensor<1x2x4x4xf32>
  %m = "onnx.MaxPool"(%d) <{resultSegmentSizes = array<i32: 1, 0>}> {auto_pad = "NOTSET", ceil_mode = 0 : i64, kernel_shape = array<i64: 2, 2>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  func.return %m : tensor<1x2x2x2xf32>
}
// CHECK:      %m = "onnx.MaxPool"(%q) <{resultSegmentSizes = array<i32: 1, 0>}> {{.*}} : (tensor<1x2x4x4x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01:3}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01:3}>>
// CHECK-NEXT: %m_1 = quant.dcast %m : tensor<1x2x2x2x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01:3}>> to tensor<1x2x2x2xf32>
// CHECK-NEXT: func.return %m_1
