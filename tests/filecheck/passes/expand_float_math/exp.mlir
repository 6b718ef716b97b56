// RUN: bitfold-opt %s -p expand-float-math | filecheck %s

// exp(x) on f32: clamp, floor(x log2 e + 1/2) by the 1.5 * 2^23 rounding constant, Cody-Waite
// reduction by ln 2 = C1 + C2, the degree-6 polynomial, 2^n built in the exponent field. Only
// basic arith remains (no math op, no float-integer conversion).

func.func @exp(%x: f32) -> f32 {
  %y = math.exp %x : f32
  func.return %y : f32
}

// CHECK-NOT:  math.
// CHECK:      %[[LO:.*]] = arith.constant -87.3365479 : f32
// CHECK-NEXT: %[[X1:.*]] = arith.maximumf %x, %[[LO]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 8.800000e+01 : f32
// CHECK-NEXT: %[[X:.*]] = arith.minimumf %[[X1]], %[[HI]] : f32
// CHECK-NEXT: %[[L2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NEXT: %[[XL:.*]] = arith.mulf %[[X]], %[[L2E]] : f32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[F:.*]] = arith.addf %[[XL]], %[[HALF]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT: %[[FM:.*]] = arith.addf %[[F]], %[[M]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.subf %[[FM]], %[[M]] : f32
// CHECK-NEXT: %[[ABOVE:.*]] = arith.cmpf ogt, %[[T]], %[[F]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[T1:.*]] = arith.subf %[[T]], %[[ONE]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.select %[[ABOVE]], %[[T1]], %[[T]] : f32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 0.693359375 : f32
// CHECK-NEXT: %[[NC1:.*]] = arith.mulf %[[N]], %[[C1]] : f32
// CHECK-NEXT: %[[R1:.*]] = arith.subf %[[X]], %[[NC1]] : f32
// CHECK-NEXT: %[[C2:.*]] = arith.constant -0.000212194442 : f32
// CHECK-NEXT: %[[NC2:.*]] = arith.mulf %[[N]], %[[C2]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[R1]], %[[NC2]] : f32
// CHECK-COUNT-5: arith.addf
// CHECK:      %[[R2:.*]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK-NEXT: %[[PR2:.*]] = arith.mulf %{{.*}}, %[[R2]] : f32
// CHECK-NEXT: %[[PR:.*]] = arith.addf %[[PR2]], %[[R]] : f32
// CHECK-NEXT: %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[P:.*]] = arith.addf %[[PR]], %[[ONE2]] : f32
// CHECK-NEXT: %[[MB:.*]] = arith.constant 0x4B40007F : f32
// CHECK-NEXT: %[[NB:.*]] = arith.addf %[[N]], %[[MB]] : f32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[NB]] : f32 to i32
// CHECK-NEXT: %[[MBITS:.*]] = arith.constant 1262485504 : i32
// CHECK-NEXT: %[[E:.*]] = arith.subi %[[BITS]], %[[MBITS]] : i32
// CHECK-NEXT: %[[SH:.*]] = arith.constant 23 : i32
// CHECK-NEXT: %[[EF:.*]] = arith.shli %[[E]], %[[SH]] : i32
// CHECK-NEXT: %[[POW:.*]] = arith.bitcast %[[EF]] : i32 to f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[P]], %[[POW]] : f32
// CHECK-NEXT: func.return %[[Y]] : f32
