// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A matrix-vector product (a fully connected layer at batch 1: each weight is used once): the
// register tile is 16 outputs, so each activation load serves 16 MACs, and the weights (re-laid
// out in panels of 16 outputs x 4 reduction steps, weight_panels.py) are loaded one by one as the
// products consume them, never held (`loop_nest_plan.held_row`): 16 accumulators, the
// activation, a weight and a product fit the registers. The reduction is unrolled by 4.

"memref.global"() <{sym_name = "w", type = memref<32x64xi8>, initial_value = dense<1> : tensor<32x64xi8>, sym_visibility = "private", constant}> : () -> ()

func.func @matvec(%x: memref<1x64xi8>, %out: memref<1x32xi32>) {
  %w = memref.get_global @w : memref<32x64xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<1x64xi8>, memref<32x64xi8>) outs(%out : memref<1x32xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  func.return
}

// CHECK:      memref.get_global @w_panel0 : memref<2048xi8>
// CHECK:      riscv_scf.for %[[OUT:.*]] : !riscv.reg = %{{.*}} to %{{.*}} step 64 : si12 iter_args(%[[X0:[^ ]*]] = %{{.*}}, %[[W0:[^ ]*]] = %{{.*}})
// CHECK-NEXT:   rvmem.lw %[[OUT]], 0 :
// CHECK:        rvmem.lw %[[OUT]], 60 :
// CHECK:        riscv_scf.for %[[X:.*]] : !riscv.reg = %[[X0]] : !riscv.reg to %{{.*}} step 4 : si12 iter_args(%[[W:[^ ]*]] = %[[W0]],
// CHECK:          %[[A:.*]] = rvmem.lb %[[X]], 0 :
// CHECK-NEXT:     %[[AI:.*]] = builtin.unrealized_conversion_cast %[[A]]
// CHECK-NEXT:     %[[B:.*]] = rvmem.lb %[[W]], 0 :
// CHECK-NEXT:     %[[BI:.*]] = builtin.unrealized_conversion_cast %[[B]]
// CHECK-NEXT:     arith.muli %[[AI]], %[[BI]]
// CHECK-NEXT:     arith.addi
// CHECK-NEXT:     rvmem.lb %[[W]], 4 :
// CHECK:          rvmem.lb %[[W]], 60 :
// CHECK-NOT:      rvmem.lb %[[X]], 0 :
// CHECK:          rvmem.lb %[[X]], 1 :
// CHECK:          rvmem.lb %[[W]], 63 :
// CHECK:          riscv.addi %[[W]], 64
// CHECK:          riscv_scf.yield
// CHECK:        rvmem.sw %[[OUT]], %{{.*}}, 0 :
// CHECK:        rvmem.sw %[[OUT]], %{{.*}}, 60 :
// CHECK:        riscv_scf.yield
// CHECK-NOT:  linalg.generic
