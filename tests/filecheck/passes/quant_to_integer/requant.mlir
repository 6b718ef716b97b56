// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// qcast(dcast(q)) between two uniform types is one quant.requant of q, keeping the qcast's
// rounding mode and zero-point order (here QONNX's: half away from zero, zero point first).

func.func @requant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  %yq = quant.qcast %xf {rounding = "half_away_from_zero", zero_point_first} : tensor<4xf32> to tensor<4x!quant.uniform<i4:f32, 2.0:1>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<i4:f32, 2.0:1>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>>
// CHECK-NEXT: %yq = quant.requant %xq {rounding = "half_away_from_zero", zero_point_first} : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4x!quant.uniform<i4:f32, 2.000000e+00:1>>
// CHECK-NEXT: %yf = quant.dcast %yq : tensor<4x!quant.uniform<i4:f32, 2.000000e+00:1>> to tensor<4xf32>
// CHECK-NEXT: func.return %yf : tensor<4xf32>
