// RUN: bitfold-opt %s -p expand-float-math | filecheck %s

// sqrt: a first guess from the halved bits, four Newton steps y = 0.5 (y + a / y), 0 where a <= 0.
// erf: x P(x^2) below |x| = 1, 1 - poly(t) exp(-x^2) with t = 1 / (1 + p |x|) and the sign put back
// above, one select.

func.func @sqrt(%a: f32) -> f32 {
  %y = math.sqrt %a : f32
  func.return %y : f32
}

// CHECK-LABEL: func.func @sqrt
// CHECK-NOT:  math.
// CHECK:      %[[BITS:.*]] = arith.bitcast %a : f32 to i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[HALVED:.*]] = arith.shrui %[[BITS]], %[[ONE]] : i32
// CHECK-NEXT: %[[GUESS:.*]] = arith.constant 532487669 : i32
// CHECK-NEXT: %[[Y0BITS:.*]] = arith.addi %[[HALVED]], %[[GUESS]] : i32
// CHECK-NEXT: %[[Y0:.*]] = arith.bitcast %[[Y0BITS]] : i32 to f32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[Q1:.*]] = arith.divf %a, %[[Y0]] : f32
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[Y0]], %[[Q1]] : f32
// CHECK-NEXT: %[[Y1:.*]] = arith.mulf %[[HALF]], %[[S1]] : f32
// CHECK-COUNT-3: arith.divf %a
// CHECK:      %[[Y4:.*]] = arith.mulf %[[HALF]], %{{.*}} : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[POSITIVE:.*]] = arith.cmpf ogt, %a, %[[ZERO]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[POSITIVE]], %[[Y4]], %[[ZERO]] : f32
// CHECK-NEXT: func.return %[[Y]] : f32

func.func @erf(%x: f32) -> f32 {
  %y = math.erf %x : f32
  func.return %y : f32
}

// CHECK-LABEL: func.func @erf
// CHECK-NOT:  math.
// CHECK:      %[[NX:.*]] = arith.negf %x : f32
// CHECK-NEXT: %[[A:.*]] = arith.maximumf %x, %[[NX]] : f32
// CHECK:      %[[Z:.*]] = arith.mulf %x, %x : f32
// CHECK:      %[[SMALL:.*]] = arith.mulf %x, %{{.*}} : f32
// CHECK:      arith.divf
// CHECK:      %[[SQUARE:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT: arith.negf %[[SQUARE]] : f32
// CHECK:      %[[NEG:.*]] = arith.cmpf olt, %x, %{{.*}} : f32
// CHECK:      %[[LARGE:.*]] = arith.select %[[NEG]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[IS_SMALL:.*]] = arith.cmpf olt, %[[A]], %[[LIMIT]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[IS_SMALL]], %[[SMALL]], %[[LARGE]] : f32
// CHECK-NEXT: func.return %[[Y]] : f32
