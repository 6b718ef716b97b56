// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s
// qcast(dcast(q)) from f4E2M1FN storage to i8 becomes a 16-entry table indexed by the bit pattern:
// table[b] = qcast(dcast(b)), here decode(b) * 0.5 / 0.25 = 2 * decode(b) (codes 0..7: 0, 0.5, 1, 1.5,
// 2, 3, 4, 6; 8..15 their negatives), zero-extended index.

func.func @f(%q: tensor<4x!quant.uniform<f4E2M1FN:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.25>> {
  %x = quant.dcast %q : tensor<4x!quant.uniform<f4E2M1FN:f32, 0.5>> to tensor<4xf32>
  %y = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.25>>
  func.return %y : tensor<4x!quant.uniform<i8:f32, 0.25>>
}

// CHECK:      %[[TABLE:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12]> : tensor<16xi8>
// CHECK:      %[[BITS:.*]] = quant.scast %q : tensor<4x!quant.uniform<f4E2M1FN:f32, 5.000000e-01>> to tensor<4xi4>
// CHECK:      linalg.generic
// CHECK-NEXT: ^{{.*}}(%[[B:.*]]: i4, %{{.*}}: i8):
// CHECK-NEXT:   %[[I:.*]] = arith.extui %[[B]] : i4 to i32
// CHECK-NEXT:   %[[P:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:   %[[V:.*]] = tensor.extract %[[TABLE]][%[[P]]] : tensor<16xi8>
// CHECK-NEXT:   linalg.yield %[[V]] : i8
