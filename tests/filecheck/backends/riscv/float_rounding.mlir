// RUN: bitfold-opt %s -p bitfold-riscv-expand-float-rounding | filecheck %s

// roundeven(x) = |x| < 2^23 ? copysign((|x| + 2^23) - 2^23, x) : x: the addition rounds to the
// nearest integer, ties to even; values from 2^23 on (and inf, NaN) are their own rounding.

func.func @roundeven(%x: f32) -> f32 {
  %r = math.roundeven %x : f32
  func.return %r : f32
}

// CHECK-LABEL: func.func @roundeven
// CHECK-NEXT:    %[[B:.*]] = arith.constant 0x4B000000 : f32
// CHECK-NEXT:    %[[A:.*]] = math.absf %x : f32
// CHECK-NEXT:    %[[S:.*]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK-NEXT:    %[[A2:.*]] = math.absf %x : f32
// CHECK-NEXT:    %[[U:.*]] = arith.addf %[[A2]], %[[B]] : f32
// CHECK-NEXT:    %[[D:.*]] = arith.subf %[[U]], %[[B]] : f32
// CHECK-NEXT:    %[[C:.*]] = math.copysign %[[D]], %x : f32
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[S]], %[[C]], %x : f32
// CHECK-NEXT:    func.return %[[R]] : f32

// floor(x) = t > x ? t - 1 : t with t = trunc(x) (fptosi, sitofp, copysign below 2^23)

func.func @floor(%x: f32) -> f32 {
  %r = math.floor %x : f32
  func.return %r : f32
}

// CHECK-LABEL: func.func @floor
// CHECK:         %[[I:.*]] = arith.fptosi %x : f32 to i32
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[I]] : i32 to f32
// CHECK-NEXT:    %[[C:.*]] = math.copysign %[[F]], %x : f32
// CHECK-NEXT:    %[[T:.*]] = arith.select %{{.*}}, %[[C]], %x : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[G:.*]] = arith.cmpf ogt, %[[T]], %x : f32
// CHECK-NEXT:    %[[M:.*]] = arith.subf %[[T]], %[[ONE]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[G]], %[[M]], %[[T]] : f32
// CHECK-NEXT:    func.return %[[R]] : f32
