// RUN: bitfold-opt %s -p onnx-float-to-linalg | filecheck %s

// quantize_dynamic's pair: DynamicQuantizeLinear as max / min reductions from 0.0, the scale and
// zero point as rank-0 generics, the stored values in i16; MatMulInteger with its constant weight
// centered (i8), the dynamic zero point folded out by the column sums (-1, 8) computed at compile time.

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x2xi32> {
  %w = "onnx.Constant"() {value = dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>} : () -> tensor<3x2xi8>
  %q, %s, %z = "onnx.DynamicQuantizeLinear"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) loc("dql")
  %y = "onnx.MatMulInteger"(%q, %w, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<2x3xui8>, tensor<3x2xi8>, tensor<ui8>) -> tensor<2x2xi32> loc("mmi")
  func.return %y : tensor<2x2xi32>
}

// CHECK-LABEL: func.func @f
// CHECK-NOT:   onnx.
// CHECK:       arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:       arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK:       %s = linalg.generic {{.*}} iterator_types = []
// CHECK:         arith.cmpf oeq
// CHECK:         arith.constant 2.550000e+02 : f32
// CHECK:         math.roundeven
// CHECK:       %q = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi16>)
// CHECK:         arith.divf
// CHECK-NEXT:    math.roundeven
// CHECK-NEXT:    arith.addf
// CHECK:         arith.fptosi %{{.*}} : f32 to i32
// CHECK-NEXT:    arith.trunci %{{.*}} : i32 to i16
// CHECK:       %z = linalg.generic
// CHECK:       %[[W:.*]] = arith.constant dense<{{\[\[}}1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
// CHECK:       %[[ACC:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %[[W]] : tensor<2x3xi16>, tensor<3x2xi8>)
// CHECK:       %[[SUMS:.*]] = arith.constant dense<[-1, 8]> : tensor<2xi32>
// CHECK:       %y = linalg.generic {{.*}} ins(%[[ACC]], %[[SUMS]], %z : tensor<2x2xi32>, tensor<2xi32>, tensor<i32>)
// CHECK:         arith.muli
// CHECK-NEXT:    arith.subi
