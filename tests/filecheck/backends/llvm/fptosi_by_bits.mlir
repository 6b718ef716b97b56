// RUN: bitfold-opt %s -p bitfold-llvm-fptosi-by-bits | filecheck %s

// f32 -> i32 fptosi as integer operations on the float's bits (qemu 7.2 aborts on the vector
// conversion vfcvt.rtz.x.f.v): exponent e and mantissa m with its implicit one, shifted left by
// clamp(e - 150) or right by clamp(150 - e), negated for a negative float. Other widths stay.

func.func @truncate(%x: f32) -> i32 {
  %i = arith.fptosi %x : f32 to i32
  func.return %i : i32
}

// CHECK-LABEL: func.func @truncate
// CHECK-NEXT: %[[B:.*]] = arith.bitcast %x : f32 to i32
// CHECK-NEXT: %[[C23:.*]] = arith.constant 23 : i32
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[B]], %[[C23]] : i32
// CHECK-NEXT: %[[C255:.*]] = arith.constant 255 : i32
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[SH]], %[[C255]] : i32
// CHECK-NEXT: %[[FRAC:.*]] = arith.constant 8388607 : i32
// CHECK-NEXT: %[[F:.*]] = arith.andi %[[B]], %[[FRAC]] : i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 8388608 : i32
// CHECK-NEXT: %[[M:.*]] = arith.ori %[[F]], %[[ONE]] : i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[C150:.*]] = arith.constant 150 : i32
// CHECK-NEXT: %[[DL:.*]] = arith.subi %[[E]], %[[C150]] : i32
// CHECK-NEXT: %[[DL0:.*]] = arith.maxsi %[[DL]], %[[ZERO]] : i32
// CHECK-NEXT: %[[AL:.*]] = arith.minsi %[[DL0]], %[[C31]] : i32
// CHECK-NEXT: %[[LEFT:.*]] = arith.shli %[[M]], %[[AL]] : i32
// CHECK-NEXT: %[[DR:.*]] = arith.subi %[[C150]], %[[E]] : i32
// CHECK-NEXT: %[[DR0:.*]] = arith.maxsi %[[DR]], %[[ZERO]] : i32
// CHECK-NEXT: %[[AR:.*]] = arith.minsi %[[DR0]], %[[C31]] : i32
// CHECK-NEXT: %[[RIGHT:.*]] = arith.shrui %[[M]], %[[AR]] : i32
// CHECK-NEXT: %[[INT:.*]] = arith.cmpi sge, %[[E]], %[[C150]] : i32
// CHECK-NEXT: %[[MAG:.*]] = arith.select %[[INT]], %[[LEFT]], %[[RIGHT]] : i32
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[B]], %[[ZERO]] : i32
// CHECK-NEXT: %[[NMAG:.*]] = arith.subi %[[ZERO]], %[[MAG]] : i32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[NEG]], %[[NMAG]], %[[MAG]] : i32
// CHECK-NEXT: func.return %[[Y]] : i32

func.func @narrow(%x: f32) -> i8 {
  %i = arith.fptosi %x : f32 to i8
  func.return %i : i8
}

// CHECK-LABEL: func.func @narrow
// CHECK-NEXT: %i = arith.fptosi %x : f32 to i8
