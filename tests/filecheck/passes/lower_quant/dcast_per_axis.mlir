// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// A per-axis dcast: the scale and zero point tables are read through an indexing map on axis 1;
// u8 storage widens with extui.

func.func @dcast(%q: tensor<2x3x!quant.uniform<u8:f32:1, {0.5:128, 0.25:120, 2.0}>>) -> tensor<2x3xf32> {
  %x = quant.dcast %q : tensor<2x3x!quant.uniform<u8:f32:1, {0.5:128, 0.25:120, 2.0}>> to tensor<2x3xf32>
  func.return %x : tensor<2x3xf32>
}

// CHECK:      func.func @dcast(%q: tensor<2x3xi8>) -> tensor<2x3xf32> {
// CHECK-NEXT:   %0 = arith.constant dense<[5.000000e-01, 2.500000e-01, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:   %1 = arith.constant dense<[128, 120, 0]> : tensor<3xi32>
// CHECK:        %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:          %7 = arith.extui %3 : i8 to i32
// CHECK-NEXT:     %8 = arith.subi %7, %5 : i32
// CHECK-NEXT:     %9 = arith.sitofp %8 : i32 to f32
// CHECK-NEXT:     %10 = arith.mulf %9, %4 : f32
// CHECK-NEXT:     linalg.yield %10 : f32
