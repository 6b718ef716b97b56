// RUN: bitfold-opt %s -p expand-float-math | filecheck %s

// sqrt: correctly rounded, the digit-by-digit integer root of the significand (25 digits), a
// subnormal scaled by 2^24 first; the canonical NaN above +inf's bits (negative values, NaN), +-0
// and +inf themselves.
// erf: x P(x^2) below |x| = 1, 1 - poly(t) exp(-x^2) with t = 1 / (1 + p |x|) and the sign put back
// above, one select.

func.func @sqrt(%a: f32) -> f32 {
  %y = math.sqrt %a : f32
  func.return %y : f32
}

// CHECK-LABEL: func.func @sqrt
// CHECK-NOT:  math.
// CHECK:      %[[BITS:.*]] = arith.bitcast %a : f32 to i32
// CHECK-NEXT: %[[MIN_NORMAL:.*]] = arith.constant 8388608 : i32
// CHECK-NEXT: %[[SUBNORMAL:.*]] = arith.cmpi ult, %[[BITS]], %[[MIN_NORMAL]] : i32
// CHECK-NEXT: %[[SCALE:.*]] = arith.constant 0x4B800000 : f32
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %a, %[[SCALE]] : f32
// CHECK-NEXT: arith.select %[[SUBNORMAL]], %[[SCALED]], %a : f32
// CHECK-COUNT-25: arith.cmpi uge
// CHECK-NOT:  arith.cmpi uge
// CHECK:      %[[INF:.*]] = arith.constant 2139095040 : i32
// CHECK-NEXT: %[[INVALID:.*]] = arith.cmpi ugt, %[[BITS]], %[[INF]] : i32
// CHECK-NEXT: %[[NAN:.*]] = arith.constant 2143289344 : i32
// CHECK-NEXT: arith.select %[[INVALID]], %[[NAN]], %{{.*}} : i32
// CHECK-NOT:  arith.divf
// CHECK:      %[[Y:.*]] = arith.bitcast %{{.*}} : i32 to f32
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
