// RUN: bitfold-opt %s -p widen-sub-byte-outputs | filecheck %s

// docs/riscv-abi.md: an i1..i7 output element is one byte, sign-extended when its quantized type is
// signed (%s: i4), zero-extended otherwise (%u: u4 with zero point 8). The output buffers become
// memrefs of i8, the generic yields extsi / extui of its i4 value, and the body sees the old output
// element as trunci of the byte. The input %x (read only) stays as it is.

func.func @clamp(%x: memref<4xi8>, %s: memref<4xi4> {quant.type = "!quant.uniform<i4:f32, 5.000000e-01>"}, %u: memref<4xi4> {quant.type = "!quant.uniform<u4:f32, 5.000000e-01:8>"}, %workspace: memref<0xi8> {bitfold.workspace}) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<4xi8>) outs(%s, %u : memref<4xi4>, memref<4xi4>) {
  ^bb0(%a: i8, %o: i4, %p: i4):
    %t = arith.trunci %a : i8 to i4
    linalg.yield %t, %t : i4, i4
  }
  func.return
}

// CHECK:      func.func @clamp(%x: memref<4xi8>, %s: memref<4xi8> {quant.type = "!quant.uniform<i4:f32, 5.000000e-01>"}, %u: memref<4xi8> {quant.type = "!quant.uniform<u4:f32, 5.000000e-01:8>"}, %workspace: memref<0xi8> {bitfold.workspace}) {
// CHECK-NEXT:   linalg.generic {{.*}} ins(%x : memref<4xi8>) outs(%s, %u : memref<4xi8>, memref<4xi8>) {
// CHECK-NEXT:   ^bb0(%a: i8, %o: i8, %p: i8):
// CHECK-DAG:      arith.trunci %o : i8 to i4
// CHECK-DAG:      arith.trunci %p : i8 to i4
// CHECK:          %t = arith.trunci %a : i8 to i4
// CHECK-NEXT:     %[[S:.*]] = arith.extsi %t : i4 to i8
// CHECK-NEXT:     %[[U:.*]] = arith.extui %t : i4 to i8
// CHECK-NEXT:     linalg.yield %[[S]], %[[U]] : i8, i8

// Separate generics: each sub-byte output widened by its own type, an i8 output (%w) left alone.

func.func @f(%x: memref<4xi8>, %s: memref<4xi4> {quant.type = "!quant.uniform<i4:f32, 0.5>"},
             %u: memref<4xi4> {quant.type = "!quant.uniform<u4:f32, 0.5>"}, %w: memref<4xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<4xi8>) outs(%s : memref<4xi4>) {
  ^bb0(%a: i8, %o: i4):
    %t = arith.trunci %a : i8 to i4
    linalg.yield %t : i4
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<4xi8>) outs(%u : memref<4xi4>) {
  ^bb0(%a: i8, %o: i4):
    %t = arith.trunci %a : i8 to i4
    linalg.yield %t : i4
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<4xi8>) outs(%w : memref<4xi8>) {
  ^bb0(%a: i8, %o: i8):
    linalg.yield %a : i8
  }
  func.return
}

// CHECK:      func.func @f(%x: memref<4xi8>, %s: memref<4xi8> {quant.type = "!quant.uniform<i4:f32, 0.5>"}, %u: memref<4xi8> {quant.type = "!quant.uniform<u4:f32, 0.5>"}, %w: memref<4xi8>) {
// CHECK:        outs(%s : memref<4xi8>) {
// CHECK-NEXT:   ^bb0(%a: i8, %o: i8):
// CHECK-NEXT:     %{{.*}} = arith.trunci %o : i8 to i4
// CHECK-NEXT:     %t = arith.trunci %a : i8 to i4
// CHECK-NEXT:     %[[S:.*]] = arith.extsi %t : i4 to i8
// CHECK-NEXT:     linalg.yield %[[S]] : i8
// CHECK:        outs(%u : memref<4xi8>) {
// CHECK:          %[[U:.*]] = arith.extui %t{{.*}} : i4 to i8
// CHECK-NEXT:     linalg.yield %[[U]] : i8
// CHECK:        outs(%w : memref<4xi8>) {
// CHECK-NEXT:   ^bb0(%a{{.*}}: i8, %o{{.*}}: i8):
// CHECK-NEXT:     linalg.yield %a{{.*}} : i8
