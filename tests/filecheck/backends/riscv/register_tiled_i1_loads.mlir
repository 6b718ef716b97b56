// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// Packing i1 bits into words (quant-to-integer's bit_packing: `acc | extui(b) << (31 - j)`): an i1
// element is one byte, loaded with `lb` and brought to the register convention's 0 or 1 by
// `andi 1` unless its bytes are known to be 0 or 1 (`register_tiled_loops.zero_or_one_bytes`): a
// bipolar input (the ABI zero-extends its bit in the byte), a view of the workspace (bitfold
// stores i1 registers, 0 or 1); an input of no recorded type, or a signed one (-1 is 0xFF), keeps it.

"memref.global"() <{sym_name = "shifts", type = memref<32xi32>, initial_value = dense<[31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]> : tensor<32xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @bipolar(%x: memref<32x8xi1> {quant.type = "!quant.bipolar<f32, 1.000000e+00>"}, %words: memref<1x8xi32>) {
  %s = memref.get_global @shifts : memref<32xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 * 32 + d2, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %s : memref<32x8xi1>, memref<32xi32>) outs(%words : memref<1x8xi32>) {
  ^bb0(%b: i1, %k: i32, %acc: i32):
    %e = arith.extui %b : i1 to i32
    %v = arith.shli %e, %k : i32
    %r = arith.ori %acc, %v : i32
    linalg.yield %r : i32
  }
  func.return
}

// CHECK-LABEL: func.func @bipolar
// CHECK:         riscv_scf.for
// CHECK:           %[[B:.*]] = rvmem.lb %{{.*}}, 0
// CHECK-NEXT:      builtin.unrealized_conversion_cast %[[B]] : !riscv.reg to i1
// CHECK-NOT:       riscv.andi

func.func @workspace(%words: memref<1x8xi32>, %workspace: memref<256xi8> {bitfold.workspace}) {
  %offset = arith.constant 0 : index
  %x = memref.view %workspace[%offset][] : memref<256xi8> to memref<32x8xi1>
  %s = memref.get_global @shifts : memref<32xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 * 32 + d2, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %s : memref<32x8xi1>, memref<32xi32>) outs(%words : memref<1x8xi32>) {
  ^bb0(%b: i1, %k: i32, %acc: i32):
    %e = arith.extui %b : i1 to i32
    %v = arith.shli %e, %k : i32
    %r = arith.ori %acc, %v : i32
    linalg.yield %r : i32
  }
  func.return
}

// CHECK-LABEL: func.func @workspace
// CHECK:         riscv_scf.for
// CHECK:           %[[B:.*]] = rvmem.lb %{{.*}}, 0
// CHECK-NEXT:      builtin.unrealized_conversion_cast %[[B]] : !riscv.reg to i1
// CHECK-NOT:       riscv.andi

func.func @signed(%x: memref<32x8xi1> {quant.type = "!quant.uniform<i1:f32, 1.0>"}, %words: memref<1x8xi32>) {
  %s = memref.get_global @shifts : memref<32xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 * 32 + d2, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %s : memref<32x8xi1>, memref<32xi32>) outs(%words : memref<1x8xi32>) {
  ^bb0(%b: i1, %k: i32, %acc: i32):
    %e = arith.extui %b : i1 to i32
    %v = arith.shli %e, %k : i32
    %r = arith.ori %acc, %v : i32
    linalg.yield %r : i32
  }
  func.return
}

// CHECK-LABEL: func.func @signed
// CHECK:         riscv_scf.for
// CHECK:           %[[B:.*]] = rvmem.lb %{{.*}}, 0
// CHECK-NEXT:      riscv.andi %[[B]], 1

func.func @untyped(%x: memref<32x8xi1>, %words: memref<1x8xi32>) {
  %s = memref.get_global @shifts : memref<32xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 * 32 + d2, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %s : memref<32x8xi1>, memref<32xi32>) outs(%words : memref<1x8xi32>) {
  ^bb0(%b: i1, %k: i32, %acc: i32):
    %e = arith.extui %b : i1 to i32
    %v = arith.shli %e, %k : i32
    %r = arith.ori %acc, %v : i32
    linalg.yield %r : i32
  }
  func.return
}

// CHECK-LABEL: func.func @untyped
// CHECK:         riscv_scf.for
// CHECK:           %[[B:.*]] = rvmem.lb %{{.*}}, 0
// CHECK-NEXT:      riscv.andi %[[B]], 1
