// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A stride-2 depthwise layer with its requantization fused, whose output is then padded: the fused
// nest writes the padded buffer's interior (padded_outputs.py), its output map (c, h + 1, w + 1)
// no longer giving the loop bounds of h and w (elsewhere only in h * 2 + kh), which the generic
// keeps in `bitfold.loop_bounds`. The fill (nest 4) comes first, no nest copies y (nest 5).

func.func @dw(%x: memref<2x9x9xi8>, %w: memref<2x3x3xi8>, %bias: memref<2xi32>, %out: memref<2x6xi32>, %workspace: memref<200xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 200 : i64} {
  %c0 = arith.constant 0 : index
  %acc = memref.view %workspace[%c0][] : memref<200xi8> to memref<2x4x4xi32>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<2xi32>) outs(%acc : memref<2x4x4xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h * 2 + kh, w * 2 + kw)>, affine_map<(c, h, w, kh, kw) -> (c, kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<2x9x9xi8>, memref<2x3x3xi8>) outs(%acc : memref<2x4x4xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  }
  %c128 = arith.constant 128 : index
  %y = memref.view %workspace[%c128][] : memref<200xi8> to memref<2x4x4xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc : memref<2x4x4xi32>) outs(%y : memref<2x4x4xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  %c0b = arith.constant 0 : index
  %padded = memref.view %workspace[%c0b][] : memref<200xi8> to memref<2x6x6xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%padded : memref<2x6x6xi8>) {
  ^bb0(%o: i8):
    %z = arith.constant 0 : i8
    linalg.yield %z : i8
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h + 1, w + 1)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : memref<2x4x4xi8>) outs(%padded : memref<2x6x6xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%padded : memref<2x6x6xi8>) outs(%out : memref<2x6xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    %r = arith.addi %o, %v32 : i32
    linalg.yield %r : i32
  }
  func.return
}

// CHECK:      rvmem.sw
// CHECK:      } {bitfold.nest = #builtin.int<4>}
// The fused nest (the contraction's number, 2): bytes stored from row 1, column 1 (offset 7).
// CHECK:      arith.trunci
// CHECK:      rvmem.sb %{{.*}}, %{{.*}}, 7
// CHECK:      } {bitfold.nest = #builtin.int<2>}
// CHECK-NOT:  bitfold.nest = #builtin.int<5>
// CHECK:      } {bitfold.nest = #builtin.int<6>}
