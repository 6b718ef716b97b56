// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// Two elementwise epilogues in a chain (fused_epilogue.compose_epilogues): a binary layer's
// correction (C = k - 2 * count, into the workspace) and its sign threshold (C * d >= t, the
// output) become one epilogue, fused into the popcount nest after a workspace view between
// them: one nest (the reduction unrolled into a 1 x 2 tile), the counts start as the bias, a
// constant (`uniform_constant`: no load; canonicalization folds the first add), the composed body runs on the tile after the reduction and stores one byte an output, no
// i32 store at all; the threshold's dead read of its output (`trunci %o`) is gone.

"memref.global"() <{sym_name = "w", type = memref<2x4xi32>, initial_value = dense<[[-1, 0, 5, 7], [3, -8, 0, -1]]> : tensor<2x4xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "zero", type = memref<i32>, initial_value = dense<0> : tensor<i32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "k", type = memref<2x2xi16>, initial_value = dense<[[128, 126], [120, 128]]> : tensor<2x2xi16>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "t", type = memref<2xi32>, initial_value = dense<[0, -2]> : tensor<2xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "d", type = memref<2xi32>, initial_value = dense<[1, -1]> : tensor<2xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @binary(%x: memref<2x4xi32>, %out: memref<2x2xi8>, %workspace: memref<32xi8>) {
  %w = memref.get_global @w : memref<2x4xi32>
  %zero = memref.get_global @zero : memref<i32>
  %offset = arith.constant 0 : index
  %count = memref.view %workspace[%offset][] : memref<32xi8> to memref<2x2xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%zero : memref<i32>) outs(%count : memref<2x2xi32>) {
  ^bb0(%z: i32, %o: i32):
    linalg.yield %z : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<2x4xi32>, memref<2x4xi32>) outs(%count : memref<2x2xi32>) {
  ^bb0(%a: i32, %b: i32, %s: i32):
    %v = arith.xori %a, %b : i32
    %n = math.ctpop %v : i32
    %r = arith.addi %s, %n : i32
    linalg.yield %r : i32
  }
  %k = memref.get_global @k : memref<2x2xi16>
  %offset_1 = arith.constant 16 : index
  %dot = memref.view %workspace[%offset_1][] : memref<32xi8> to memref<2x2xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%count, %k : memref<2x2xi32>, memref<2x2xi16>) outs(%dot : memref<2x2xi32>) {
  ^bb0(%c: i32, %kc: i16, %o: i32):
    %ke = arith.extsi %kc : i16 to i32
    %one = arith.constant 1 : i32
    %twice = arith.shli %c, %one : i32
    %r = arith.subi %ke, %twice : i32
    linalg.yield %r : i32
  }
  %t = memref.get_global @t : memref<2xi32>
  %d = memref.get_global @d : memref<2xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%dot, %t, %d : memref<2x2xi32>, memref<2xi32>, memref<2xi32>) outs(%out : memref<2x2xi8>) {
  ^bb0(%v: i32, %tc: i32, %dc: i32, %o: i8):
    %unused = arith.trunci %o : i8 to i1
    %p = arith.muli %v, %dc : i32
    %b = arith.cmpi sge, %p, %tc : i32
    %r = arith.extui %b : i1 to i8
    linalg.yield %r : i8
  }
  func.return
}

// CHECK-LABEL: func.func @binary
// CHECK-NOT:   linalg.generic
// CHECK:       riscv_scf.for
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         math.ctpop
// CHECK-NEXT:    arith.addi %[[ZERO]], %n : i32
// CHECK-COUNT-7: math.ctpop
// CHECK-NOT:     rvmem.sw
// CHECK-NOT:     arith.trunci
// CHECK:         rvmem.lh
// CHECK:         arith.extsi
// CHECK-NEXT:    arith.constant 1
// CHECK-NEXT:    arith.shli
// CHECK-NEXT:    arith.subi
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    arith.cmpi sge
// CHECK-NEXT:    arith.extui
// CHECK-NEXT:    builtin.unrealized_conversion_cast
// CHECK-NEXT:    rvmem.sb %{{.*}}, %{{.*}}, 0
// CHECK:         rvmem.sb %{{.*}}, %{{.*}}, 1
// CHECK-NEXT:    riscv.addi
// CHECK-NEXT:    riscv.addi
// CHECK-NEXT:    riscv_scf.yield
// CHECK-NEXT:  } {bitfold.nest = #builtin.int<2>}
// CHECK-NOT:   rvmem.sw
// CHECK-NEXT:  func.return
