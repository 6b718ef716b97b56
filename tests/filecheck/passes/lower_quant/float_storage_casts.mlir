// RUN: bitfold-opt %s -p lower-quant | filecheck %s
// dcast from f8E4M3FN storage: the 256 exact float32 values of the bit patterns, indexed by the
// zero-extended byte, times the scale. qcast to it: the division, then integer arithmetic on the
// quotient's bits (passes/lower_quant/float_storage.py states the formula).

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<f8E4M3FN:f32, 0.5>>
  %y = quant.dcast %q : tensor<4x!quant.uniform<f8E4M3FN:f32, 0.5>> to tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK:      linalg.generic
// CHECK:        %[[V:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:   %[[U:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK-NOT:    arith.{{.*}}f
// CHECK:        arith.trunci %{{.*}} : i32 to i8
// CHECK:      %[[TABLE:.*]] = arith.constant dense<"0x000000000000003B{{[0-9A-F]*}}"> : tensor<256xf32>
// CHECK:      linalg.generic
// CHECK-NEXT: ^{{.*}}(%[[B:.*]]: i8, %{{.*}}: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:   %[[I:.*]] = arith.extui %[[B]] : i8 to i32
// CHECK-NEXT:   %[[P:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:   %[[D:.*]] = tensor.extract %[[TABLE]][%[[P]]] : tensor<256xf32>
// CHECK-NEXT:   %{{.*}} = arith.mulf %[[D]], %[[S]] : f32
