// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A non-saturating qcast to f8E4M3FN (ONNX saturate = 0): a code beyond the largest finite one
// (0x7E = 126) becomes the format's NaN (0x7F = 127) instead of being clamped to 126.

func.func @non_saturating(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<f8E4M3FN:f32, 5.000000e-01>> {
  %q = quant.qcast %x {non_saturating} : tensor<4xf32> to tensor<4x!quant.uniform<f8E4M3FN:f32, 5.000000e-01>>
  func.return %q : tensor<4x!quant.uniform<f8E4M3FN:f32, 5.000000e-01>>
}

// CHECK:      %[[MAX:.*]] = arith.constant 126 : i32
// CHECK-NEXT: %[[BEYOND:.*]] = arith.cmpi sgt, %[[CODE:.*]], %[[MAX]] : i32
// CHECK-NEXT: %[[NAN:.*]] = arith.constant 127 : i32
// CHECK-NEXT: %{{.*}} = arith.select %[[BEYOND]], %[[NAN]], %[[CODE]] : i32
// CHECK-NOT:  arith.minsi
