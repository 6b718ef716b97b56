// RUN: bitfold-opt %s -p 'bitfold-lower-to-riscv{xlen=32 registers=27}' | filecheck %s --check-prefixes=CHECK,RV32
// RUN: bitfold-opt %s -p 'bitfold-lower-to-riscv{xlen=64}' | filecheck %s --check-prefixes=CHECK,RV64

// The named pipeline from the kernel ABI's memref form (after bufferize) to register-allocated
// riscv: the buffers arrive in a0, a1 and the workspace in a2 (docs/riscv-abi.md); the 4-element
// loop is unrolled, each i8 loaded with lb, 3 added, the i8 result kept sign-extended in its
// register (shift left and arithmetic right by xlen - 8) and stored with sb; a leaf without a frame.

func.func @add3(%x: memref<4xi8>, %out: memref<4xi8>, %workspace: memref<0xi8> {bitfold.workspace}) attributes {bitfold.workspace_size = 0 : i64} {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<4xi8>) outs(%out : memref<4xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c3 = arith.constant 3 : i8
    %s = arith.addi %a, %c3 : i8
    linalg.yield %s : i8
  }
  func.return
}

// CHECK:      riscv_func.func public @add3(%x: !riscv.reg<a0>, %out: !riscv.reg<a1>, %workspace: !riscv.reg<a2>)
// CHECK:        %[[X:.*]] = riscv.mv %x : (!riscv.reg<a0>) -> !riscv.reg<[[XR:.*]]>
// CHECK-NEXT:   %[[OUT:.*]] = riscv.mv %out : (!riscv.reg<a1>) -> !riscv.reg<[[OR:.*]]>
// CHECK-NEXT:   %[[L0:.*]] = rvmem.lb %[[X]], 0
// CHECK-NEXT:   %[[S0:.*]] = riscv.addi %[[L0]], 3
// RV32-NEXT:    %[[H0:.*]] = rv32.slli %[[S0]], 24
// RV32-NEXT:    %[[E0:.*]] = rv32.srai %[[H0]], 24
// RV64-NEXT:    %[[H0:.*]] = rv64.slli %[[S0]], 56
// RV64-NEXT:    %[[E0:.*]] = rv64.srai %[[H0]], 56
// CHECK:        rvmem.lb %[[X]], 1
// CHECK:        rvmem.lb %[[X]], 2
// CHECK:        rvmem.lb %[[X]], 3
// CHECK:        rvmem.sb %[[OUT]], %[[E0]], 0
// CHECK-NEXT:   rvmem.sb %[[OUT]], {{.*}}, 1
// CHECK-NEXT:   rvmem.sb %[[OUT]], {{.*}}, 2
// CHECK-NEXT:   rvmem.sb %[[OUT]], {{.*}}, 3
// CHECK-NEXT:   riscv_func.return
