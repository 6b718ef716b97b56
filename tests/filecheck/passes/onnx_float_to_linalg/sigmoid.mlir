// RUN: bitfold-opt %s -p onnx-float-to-linalg | filecheck %s

// Sigmoid in an island: 1 / (1 + exp(-x)) elementwise, math.exp left for expand-float-math.

func.func @sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("sigmoid")
  func.return %y : tensor<2x3xf32>
}

// CHECK:      %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   %[[N:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:   %[[EXP:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT:   %[[D:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT:   %[[Y:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT:   linalg.yield %[[Y]] : f32
// CHECK-NEXT: } -> tensor<2x3xf32>
