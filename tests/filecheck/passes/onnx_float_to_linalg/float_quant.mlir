// RUN: bitfold-opt %s -p onnx-float-to-linalg | filecheck %s

// QONNX FloatQuant (OCP e4m3: E 4, M 3, bias 7, max 448, saturating) on f32: one elementwise
// generic, qonnx's float algorithm with the binade k read from the exponent field of |v| + tiny,
// the step 2^max(k - M, 1 - B - M) built in the exponent field, v rounded to it half to even,
// clamped to +-448, NaN where v is not finite (exponent field 255), times the scale.

func.func @float_quant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %e = "onnx.Constant"() {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
  %m = "onnx.Constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %b = "onnx.Constant"() {value = dense<7.0> : tensor<f32>} : () -> tensor<f32>
  %max = "onnx.Constant"() {value = dense<448.0> : tensor<f32>} : () -> tensor<f32>
  %y = "qonnx.FloatQuant"(%x, %s, %e, %m, %b, %max) {has_inf = 0 : i64, has_nan = 1 : i64, has_subnormal = 1 : i64, saturation = 1 : i64, rounding_mode = "ROUND"} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> loc("fq")
  func.return %y : tensor<4xf32>
}

// CHECK:      linalg.generic {{.*}} ins(%x, %{{.*}} : tensor<4xf32>, tensor<f32>) outs(%{{.*}} : tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[V:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NEXT:   %[[NV:.*]] = arith.negf %[[V]] : f32
// CHECK-NEXT:   %[[ABS:.*]] = arith.maximumf %[[V]], %[[NV]] : f32
// CHECK-NEXT:   %[[TINY:.*]] = arith.constant 1.17549435e-38 : f32
// CHECK-NEXT:   %[[A:.*]] = arith.addf %[[ABS]], %[[TINY]] : f32
// CHECK-NEXT:   %[[BITS:.*]] = arith.bitcast %[[A]] : f32 to i32
// CHECK-NEXT:   %{{.*}} = arith.constant 23 : i32
// CHECK-NEXT:   %[[FIELD:.*]] = arith.shrui %[[BITS]], %{{.*}} : i32
// CHECK-NEXT:   %[[BM:.*]] = arith.constant 130 : i32
// CHECK-NEXT:   %[[K:.*]] = arith.subi %[[FIELD]], %[[BM]] : i32
// CHECK-NEXT:   %[[LOW:.*]] = arith.constant -9 : i32
// CHECK-NEXT:   %[[E:.*]] = arith.maxsi %[[K]], %[[LOW]] : i32
// CHECK:        %[[STEP:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:   %[[Q:.*]] = arith.divf %[[V]], %[[STEP]] : f32
// CHECK-NEXT:   %[[R:.*]] = math.roundeven %[[Q]] : f32
// CHECK-NEXT:   %[[QV:.*]] = arith.mulf %[[STEP]], %[[R]] : f32
// CHECK-NEXT:   %[[MIN:.*]] = arith.constant -4.480000e+02 : f32
// CHECK-NEXT:   %[[LO:.*]] = arith.maximumf %[[QV]], %[[MIN]] : f32
// CHECK-NEXT:   %[[MAX:.*]] = arith.constant 4.480000e+02 : f32
// CHECK-NEXT:   %[[Y:.*]] = arith.minimumf %[[LO]], %[[MAX]] : f32
// CHECK:        %[[SPECIAL:.*]] = arith.cmpi eq, %[[FIELD]], %{{.*}} : i32
// CHECK-NEXT:   %[[OUT:.*]] = arith.select %[[SPECIAL]], %{{.*}}, %[[Y]] : f32
// CHECK-NEXT:   %[[SCALED:.*]] = arith.mulf %[[OUT]], %[[S]] : f32
// CHECK-NEXT:   linalg.yield %[[SCALED]] : f32
// CHECK-NOT:  qonnx.FloatQuant
