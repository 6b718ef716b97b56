// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A table lookup (quant-to-integer's unary activations, after bufferization): a register-tiled
// nest like any elementwise generic. The input is read with lbu (the extui folded into the
// load), and the load from the constant table at the computed index stays in the loop body,
// once per element (unrolled by 4: four stored bytes per step).

"memref.global"() <{sym_name = "table", type = memref<256xi8>, initial_value = dense<7> : tensor<256xi8>, sym_visibility = "private", constant}> : () -> ()

func.func @lut(%x: memref<64xi8>, %out: memref<64xi8>) {
  %t = memref.get_global @table : memref<256xi8>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<64xi8>) outs(%out : memref<64xi8>) {
  ^bb0(%v: i8, %o: i8):
    %e = arith.extui %v : i8 to i32
    %i = arith.index_cast %e : i32 to index
    %l = memref.load %t[%i] : memref<256xi8>
    linalg.yield %l : i8
  }
  func.return
}

// CHECK:      %[[T:.*]] = memref.get_global @table : memref<256xi8>
// CHECK:      riscv_scf.for %[[P:.*]] : !riscv.reg = %{{.*}} to %{{.*}} step 4 : si12
// CHECK:        rvmem.lbu %[[P]], 0
// CHECK:        %[[I0:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT:   %[[L0:.*]] = memref.load %[[T]][%[[I0]]] : memref<256xi8>
// CHECK:        rvmem.lbu %[[P]], 3
// CHECK:        memref.load %[[T]]
// CHECK:        rvmem.sb %{{.*}}, %{{.*}}, 3
// CHECK-NOT:  linalg.generic
