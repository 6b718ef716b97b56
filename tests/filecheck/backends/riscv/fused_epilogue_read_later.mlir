// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// As in fused_epilogue_view.mlir, but the requantization's output %y is read again later through
// another view of the same workspace bytes (%y_again: an LSTM's cell state, read by the next time
// step): the copy after the requantization is not composed into it (`fused_epilogue.read_later`),
// so the fused nest stores %y (the workspace plus 256) and both copies stay nests of their own.

"memref.global"() <{sym_name = "w", type = memref<8x3x3xi8>, initial_value = dense<1> : tensor<8x3x3xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "bias", type = memref<8xi32>, initial_value = dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "shift", type = memref<8xi32>, initial_value = dense<[1, 2, 3, 1, 2, 3, 1, 2]> : tensor<8xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @depthwise(%x: memref<8x3x10xi8>, %out: memref<8x1x8xi8>, %again: memref<8x1x8xi8>, %workspace: memref<384xi8>) {
  %w = memref.get_global @w : memref<8x3x3xi8>
  %bias = memref.get_global @bias : memref<8xi32>
  %offset = arith.constant 0 : index
  %acc = memref.view %workspace[%offset][] : memref<384xi8> to memref<8x1x8xi32>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<8xi32>) outs(%acc : memref<8x1x8xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h + kh, w + kw)>, affine_map<(c, h, w, kh, kw) -> (c, kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<8x3x10xi8>, memref<8x3x3xi8>) outs(%acc : memref<8x1x8xi32>) {
  ^bb0(%a: i8, %v: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %ve = arith.extsi %v : i8 to i32
    %p = arith.muli %ae, %ve : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  %shift = memref.get_global @shift : memref<8xi32>
  %offset_1 = arith.constant 256 : index
  %y = memref.view %workspace[%offset_1][] : memref<384xi8> to memref<8x1x8xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc, %shift : memref<8x1x8xi32>, memref<8xi32>) outs(%y : memref<8x1x8xi8>) {
  ^bb0(%c: i32, %k: i32, %o: i8):
    %r = arith.shrsi %c, %k : i32
    %n = arith.trunci %r : i32 to i8
    linalg.yield %n : i8
  }
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : memref<8x1x8xi8>) outs(%out : memref<8x1x8xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  %y_again = memref.view %workspace[%offset_1][] : memref<384xi8> to memref<8x1x8xi8>
  linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y_again : memref<8x1x8xi8>) outs(%again : memref<8x1x8xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  func.return
}

// CHECK:      riscv.addi %{{.*}}, 256
// CHECK:      riscv_scf.for %{{.*}} step 9 : si12
// CHECK-NOT:    rvmem.sw
// CHECK:        rvmem.sb
// CHECK:      riscv_scf.for
// CHECK:      riscv_scf.for
// CHECK-NOT:  linalg.generic
