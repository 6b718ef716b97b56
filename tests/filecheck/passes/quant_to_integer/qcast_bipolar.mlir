// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// qcast(dcast(q)) from uniform (u8, zp = 10) to bipolar: the bit is real >= 0, i.e. q >= zp,
// one `arith.cmpi sge` of the zero-extended storage against 10 (exact).

func.func @to_bipolar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:10>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<u8:f32, 0.5:10>> to tensor<4xf32>
  %yq = quant.qcast %xf : tensor<4xf32> to tensor<4x!quant.bipolar<f32, 1.0>>
  %yf = quant.dcast %yq : tensor<4x!quant.bipolar<f32, 1.0>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:10>> to tensor<4xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi1>
// CHECK-NEXT: %[[BITS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]] : tensor<4xi8>) outs(%[[E]] : tensor<4xi1>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %{{.*}}: i1):
// CHECK-NEXT:   %[[ZP:.*]] = arith.constant 10 : i32
// CHECK-NEXT:   %[[VE:.*]] = arith.extui %[[V]] : i8 to i32
// CHECK-NEXT:   %[[B:.*]] = arith.cmpi sge, %[[VE]], %[[ZP]] : i32
// CHECK-NEXT:   linalg.yield %[[B]] : i1
// CHECK-NEXT: } -> tensor<4xi1>
// CHECK-NEXT: %yq = quant.scast %[[BITS]] : tensor<4xi1> to tensor<4x!quant.bipolar<f32, 1.000000e+00>>
// CHECK-NEXT: %yf = quant.dcast %yq : tensor<4x!quant.bipolar<f32, 1.000000e+00>> to tensor<4xf32>
