// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A depthwise layer whose output y shares bytes with its input x in bufferize's plan (x dead after
// the contraction, y written by the requantization): the epilogue is fused all the same, the
// workspace planned again (workspace_replan.separate_epilogue) with the accumulator buffer, which
// the fused nest no longer touches, given no bytes and y moved apart from x (offset 72), within the
// recorded size (200).

func.func @dw(%in: memref<2x6x6xi8>, %w: memref<2x3x3xi8>, %bias: memref<2xi32>, %out: memref<2x4xi32>, %workspace: memref<200xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 200 : i64} {
  %c0 = arith.constant 0 : index
  %x = memref.view %workspace[%c0][] : memref<200xi8> to memref<2x6x6xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%in : memref<2x6x6xi8>) outs(%x : memref<2x6x6xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  %c72 = arith.constant 72 : index
  %acc = memref.view %workspace[%c72][] : memref<200xi8> to memref<2x4x4xi32>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<2xi32>) outs(%acc : memref<2x4x4xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h + kh, w + kw)>, affine_map<(c, h, w, kh, kw) -> (c, kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<2x6x6xi8>, memref<2x3x3xi8>) outs(%acc : memref<2x4x4xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  }
  %y = memref.view %workspace[%c0][] : memref<200xi8> to memref<2x4x4xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc : memref<2x4x4xi32>) outs(%y : memref<2x4x4xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%y : memref<2x4x4xi8>) outs(%out : memref<2x4xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    %r = arith.addi %o, %v32 : i32
    linalg.yield %r : i32
  }
  func.return
}

// x keeps its bytes (0..72), y moves to 72.
// CHECK:      %x = memref.view %workspace[%{{.*}}][] : memref<200xi8> to memref<2x6x6xi8>
// CHECK:      %[[Y:.*]] = arith.constant 72 : index
// CHECK-NEXT: %y = memref.view %workspace[%[[Y]]][] : memref<200xi8> to memref<2x4x4xi8>
// The fused nest (the contraction's number, 3) stores the requantized bytes; no nest 4 (the epilogue's).
// CHECK:      arith.trunci
// CHECK-NEXT: builtin.unrealized_conversion_cast
// CHECK-NEXT: rvmem.sb
// CHECK:      } {bitfold.nest = #builtin.int<3>}
// CHECK-NOT:  bitfold.nest = #builtin.int<4>
