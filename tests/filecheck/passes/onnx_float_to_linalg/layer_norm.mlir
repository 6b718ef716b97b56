// RUN: bitfold-opt %s -p onnx-float-to-linalg | filecheck %s

// LayerNormalization over the last axis (4 elements): the sum from 0.0 divided by 4, the centered
// values, the sum of their squares divided by 4, sqrt(var + eps) (math.sqrt, expanded later), then
// d / r * scale + bias per element.

func.func @layer_norm(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0, 0.5, 1.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %b = "onnx.Constant"() {value = dense<[0.0, 1.0, 0.0, -1.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "onnx.LayerNormalization"(%x, %s, %b) <{operandSegmentSizes = array<i32: 1, 1, 1>, resultSegmentSizes = array<i32: 1, 0, 0>}> {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("ln")
  func.return %y : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK-NOT:   onnx.LayerNormalization
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x4xf32>)
// CHECK:         arith.addf
// CHECK:       %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2xf32>)
// CHECK:         arith.constant 4.000000e+00 : f32
// CHECK-NEXT:    arith.divf
// CHECK:       %[[CENTERED:.*]] = linalg.generic {{.*}} ins(%x, %[[MEAN]] : tensor<2x4xf32>, tensor<2xf32>)
// CHECK-NEXT:  ^bb{{.*}}
// CHECK-NEXT:    arith.subf
// CHECK:       %[[SQUARES:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[CENTERED]] : tensor<2x4xf32>)
// CHECK:         arith.mulf
// CHECK-NEXT:    arith.addf
// CHECK:       %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[SQUARES]] : tensor<2xf32>)
// CHECK:       %[[ROOT:.*]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<2xf32>)
// CHECK:         arith.constant 1.000000e-05 : f32
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    math.sqrt
// CHECK:       %y = linalg.generic {{.*}} ins(%[[CENTERED]], %[[ROOT]], %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:  ^bb{{.*}}
// CHECK-NEXT:    arith.divf
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    arith.addf
