// RUN: bitfold-opt %s -p expand-float-math | filecheck %s

// tanh: |x| by maximumf(x, -x), the odd polynomial below 0.625, 1 - 2 / (exp(2|x|) + 1) with the
// sign put back above, one select; roundeven: (|x| + 2^23) - 2^23 below 2^23, the sign bit back.
// f64 math ops are left alone.

func.func @tanh(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  func.return %y : f32
}

// CHECK-LABEL: func.func @tanh
// CHECK-NOT:  math.
// CHECK:      %[[NX:.*]] = arith.negf %x : f32
// CHECK-NEXT: %[[A:.*]] = arith.maximumf %x, %[[NX]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.mulf %x, %x : f32
// CHECK:      %[[SMALL:.*]] = arith.addf %x, %{{.*}} : f32
// CHECK:      %[[TWOA:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK:      arith.divf
// CHECK:      %[[NEG:.*]] = arith.cmpf olt, %x, %{{.*}} : f32
// CHECK:      %[[LARGE:.*]] = arith.select %[[NEG]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 6.250000e-01 : f32
// CHECK-NEXT: %[[IS_SMALL:.*]] = arith.cmpf olt, %[[A]], %[[LIMIT]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[IS_SMALL]], %[[SMALL]], %[[LARGE]] : f32
// CHECK-NEXT: func.return %[[Y]] : f32

func.func @roundeven(%x: f32) -> f32 {
  %y = math.roundeven %x : f32
  func.return %y : f32
}

// CHECK-LABEL: func.func @roundeven
// CHECK-NEXT: %[[NX:.*]] = arith.negf %x : f32
// CHECK-NEXT: %[[A:.*]] = arith.maximumf %x, %[[NX]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.constant 0x4B000000 : f32
// CHECK-NEXT: %[[AM:.*]] = arith.addf %[[A]], %[[M]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[AM]], %[[M]] : f32
// CHECK-NEXT: %[[BIG:.*]] = arith.cmpf oge, %[[A]], %[[M]] : f32
// CHECK-NEXT: %[[MAG:.*]] = arith.select %[[BIG]], %[[A]], %[[R]] : f32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %x : f32 to i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[BITS]], %[[ZERO]] : i32
// CHECK-NEXT: %[[NMAG:.*]] = arith.negf %[[MAG]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[NEG]], %[[NMAG]], %[[MAG]] : f32
// CHECK-NEXT: func.return %[[Y]] : f32

func.func @exp_f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  func.return %y : f64
}

// CHECK-LABEL: func.func @exp_f64
// CHECK-NEXT: %y = math.exp %x : f64
