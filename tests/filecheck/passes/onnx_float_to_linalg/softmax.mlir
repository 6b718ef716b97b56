// RUN: bitfold-opt %s -p onnx-float-to-linalg | filecheck %s

// Softmax along axis 1: the maximum (from the lowest f32), exp(x - max), their sum (from 0.0,
// ascending), the quotient.

func.func @softmax(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = "onnx.Softmax"(%x) {axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("softmax")
  func.return %y : tensor<2x4xf32>
}

// CHECK:      arith.constant dense<-3.40282347e+38> : tensor<f32>
// CHECK:      %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x4xf32>)
// CHECK:        arith.maximumf
// CHECK:      %[[EXPS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %[[MAX]] : tensor<2x4xf32>, tensor<2xf32>)
// CHECK:        %[[D:.*]] = arith.subf
// CHECK-NEXT:   math.exp %[[D]] : f32
// CHECK:      arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK:      %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXPS]] : tensor<2x4xf32>)
// CHECK:        arith.addf
// CHECK:      %y = linalg.generic {{.*}} ins(%[[EXPS]], %[[SUM]] : tensor<2x4xf32>, tensor<2xf32>)
// CHECK:        arith.divf
