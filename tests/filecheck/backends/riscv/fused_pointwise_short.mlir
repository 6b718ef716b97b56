// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A pointwise layer of 8 input channels (MobileNetV1's first): its reduction (8 MACs an output)
// is no longer than `fused_epilogue.SHORT_REDUCTION`, so its requantization is fused, and since
// the reduction is one dimension the tile may have 16 points
// (`register_tiled_loops.FUSED_SINGLE_REDUCTION_COPIES`, a depthwise window keeps 4): a 4 x 4
// tile, each activation and weight loaded once for 4 MACs, the epilogue applied to the 16
// accumulators and each output stored once as i8 (sb); no i32 store, no second nest.

"memref.global"() <{sym_name = "w", type = memref<16x8xi8>, initial_value = dense<1> : tensor<16x8xi8>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "bias", type = memref<16xi32>, initial_value = dense<[3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3]> : tensor<16xi32>, sym_visibility = "private", constant}> : () -> ()

func.func @pointwise(%x: memref<8x64xi8>, %out: memref<16x64xi8>, %workspace: memref<4096xi8>) {
  %w = memref.get_global @w : memref<16x8xi8>
  %bias = memref.get_global @bias : memref<16xi32>
  %offset = arith.constant 0 : index
  %acc = memref.view %workspace[%offset][] : memref<4096xi8> to memref<16x64xi32>
  linalg.generic {indexing_maps = [affine_map<(m, p) -> (m)>, affine_map<(m, p) -> (m, p)>], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<16xi32>) outs(%acc : memref<16x64xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, p, c) -> (c, p)>, affine_map<(m, p, c) -> (m, c)>, affine_map<(m, p, c) -> (m, p)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<8x64xi8>, memref<16x8xi8>) outs(%acc : memref<16x64xi32>) {
  ^bb0(%a: i8, %v: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %ve = arith.extsi %v : i8 to i32
    %p = arith.muli %ae, %ve : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, p) -> (m, p)>, affine_map<(m, p) -> (m, p)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<16x64xi32>) outs(%out : memref<16x64xi8>) {
  ^bb0(%c: i32, %o: i8):
    %k = arith.constant 3 : i32
    %r = arith.shrsi %c, %k : i32
    %n = arith.trunci %r : i32 to i8
    linalg.yield %n : i8
  }
  func.return
}

// The loop over groups of 4 output channels (the bias panel's pointer, 16 bytes), the tile's loop
// over 4 pixels (the output's pointer) loading the 4 channels' bias, the reduction loop over 4
// input channels at a time (256 bytes of x): 64 MACs; then 16 epilogues and 16 byte stores.
// CHECK:      riscv_scf.for %{{.*}} step 16 : si12
// CHECK:        riscv_scf.for %[[OUT:[0-9]+]] : !riscv.reg = %{{.*}} step 4 : si12
// CHECK-COUNT-4:  rvmem.lw
// CHECK-NOT:      rvmem.lw
// CHECK:          riscv_scf.for %{{.*}} step 256 : si12
// CHECK-COUNT-64:   arith.muli
// CHECK-NOT:        arith.muli
// CHECK:          riscv_scf.yield
// CHECK-NOT:      rvmem.sw
// CHECK:          arith.shrsi
// CHECK:          rvmem.sb %[[OUT]], %{{.*}}, 0
// CHECK-COUNT-14: rvmem.sb %[[OUT]]
// CHECK:          rvmem.sb %[[OUT]], %{{.*}}, 195
// CHECK-NOT:      rvmem.sw
// CHECK:          riscv_scf.yield
// CHECK:        riscv_scf.yield
// CHECK-NOT:  riscv_scf.for
// CHECK-NOT:  linalg.generic
