// RUN: bitfold-opt %s -p quant-to-integer | filecheck %s

// Relu of a uniform value: max(q, zp), i.e. a clamp of the storage integers to [zp, 127] =
// [-5, 127] (i8, zp = -5), same type; the function result stays its dcast.

func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:-5>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<i8:f32, 0.5:-5>> to tensor<4xf32>
  %y = "onnx.Relu"(%xf) : (tensor<4xf32>) -> tensor<4xf32> loc("relu")
  func.return %y : tensor<4xf32>
}

// CHECK:      %[[X:.*]] = quant.scast %xq : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-5>> to tensor<4xi8>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xi8>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]] : tensor<4xi8>) outs(%[[E]] : tensor<4xi8>) {
// CHECK-NEXT: ^bb0(%[[V:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:   %[[LO:.*]] = arith.constant -5 : i32
// CHECK-NEXT:   %[[HI:.*]] = arith.constant 127 : i32
// CHECK-NEXT:   %[[VE:.*]] = arith.extsi %[[V]] : i8 to i32
// CHECK-NEXT:   %[[A:.*]] = arith.maxsi %[[VE]], %[[LO]] : i32
// CHECK-NEXT:   %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : i32
// CHECK-NEXT:   %[[T:.*]] = arith.trunci %[[B]] : i32 to i8
// CHECK-NEXT:   linalg.yield %[[T]] : i8
// CHECK-NEXT: } -> tensor<4xi8>
// CHECK-NEXT: %[[Q:.*]] = quant.scast %[[R]] : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-5>>
// CHECK-NEXT: %y = quant.dcast %[[Q]] : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-5>> to tensor<4xf32>
// CHECK-NEXT: func.return %y : tensor<4xf32>
