// RUN: bitfold-opt %s -p widen-sub-byte-outputs | filecheck %s

// An i4 output buffer becomes a buffer of i8 (docs/riscv-abi.md: a sub-byte output element is one
// byte): the generic writing it yields the i4 value sign-extended for a signed quantized type
// (extsi), zero-extended for an unsigned one (extui); an i8 output is left alone.

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
