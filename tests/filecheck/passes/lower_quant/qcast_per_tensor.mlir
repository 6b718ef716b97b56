// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A per-tensor qcast: divide, round half to even (not upstream's truncation), clamp in float
// to [storage_min - zp, storage_max - zp], convert, add the zero point, narrow to the storage.

func.func @qcast(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  func.return %q : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
}

// CHECK:      func.func @qcast(%x: tensor<4xf32>) -> tensor<4xi8> {
// CHECK:        %q = linalg.generic {{.*}} ins(%x : tensor<4xf32>) outs(%0 : tensor<4xi8>) {
// CHECK:          %3 = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:     %4 = arith.constant -1.250000e+02 : f32
// CHECK-NEXT:     %5 = arith.constant 1.300000e+02 : f32
// CHECK-NEXT:     %6 = arith.constant -3 : i32
// CHECK-NEXT:     %7 = arith.divf %1, %3 : f32
// CHECK-NEXT:     %8 = math.roundeven %7 : f32
// CHECK-NEXT:     %9 = arith.maxnumf %8, %4 : f32
// CHECK-NEXT:     %10 = arith.minnumf %9, %5 : f32
// CHECK-NEXT:     %11 = arith.fptosi %10 : f32 to i32
// CHECK-NEXT:     %12 = arith.addi %11, %6 : i32
// CHECK-NEXT:     %13 = arith.trunci %12 : i32 to i8
// CHECK-NEXT:     linalg.yield %13 : i8
// CHECK-NOT:  quant.
