// RUN: bitfold-opt %s -p quant-requant-to-upstream | filecheck %s

// Ratio 0.5 / 0.125 = 4 and no value leaves i16: upstream's dcast + qcast compute it exactly.
// CHECK-LABEL: func.func @integer_ratio
// CHECK-NEXT:    %r = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:1>> to tensor<4xf32>
// CHECK-NEXT:    %r_1 = quant.qcast %r : tensor<4xf32> to tensor<4x!quant.uniform<i16:f32, 1.250000e-01:3>>
// CHECK-NEXT:    func.return %r_1
func.func @integer_ratio(%q: tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i16:f32, 0.125:3>> {
  %r = quant.requant %q : tensor<4x!quant.uniform<i8:f32, 0.5:1>> to tensor<4x!quant.uniform<i16:f32, 0.125:3>>
  func.return %r : tensor<4x!quant.uniform<i16:f32, 0.125:3>>
}

// Ratio 1/3 rounds: lower-quant's integer form between storage casts.
// CHECK-LABEL: func.func @rounding_ratio
// CHECK-NEXT:    %{{.*}} = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 1.000000e-01>> to tensor<4xi8>
// CHECK:         linalg.generic
// CHECK:         } -> tensor<4xi8>
// CHECK-NEXT:    %[[R:.*]] = quant.scast %{{.*}} : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 3.000000e-01>>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:   quant.requant
func.func @rounding_ratio(%q: tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.3>> {
  %r = quant.requant %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4x!quant.uniform<i8:f32, 0.3>>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.3>>
}

