// RUN: bitfold-opt %s -p 'bitfold-riscv-memref-to-addresses{xlen=32}' | filecheck %s
// RUN: bitfold-opt %s -p 'bitfold-riscv-memref-to-addresses{xlen=32}' | bitfold-opt | filecheck %s

// Buffers become addresses: a global is `la` of its symbol (xDSL's `li rd, symbol` does not
// assemble), a view of the workspace at a constant byte offset is `addi workspace, offset`
// (offset 0: the workspace's own register). The output reads back (`rvmem` is registered).

"memref.global"() <{sym_name = "weights", sym_visibility = "private", type = memref<4xi32>, initial_value = dense<[1, 2, 3, 4]> : tensor<4xi32>, constant}> : () -> ()
func.func @f(%workspace : memref<64xi8>) -> (memref<4xi32>, memref<2xi32>, memref<2xi32>) {
  %w = memref.get_global @weights : memref<4xi32>
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %v0 = memref.view %workspace[%c0][] : memref<64xi8> to memref<2xi32>
  %v16 = memref.view %workspace[%c16][] : memref<64xi8> to memref<2xi32>
  func.return %w, %v0, %v16 : memref<4xi32>, memref<2xi32>, memref<2xi32>
}

// CHECK:      func.func @f(%workspace: memref<64xi8>)
// CHECK-NEXT:   %[[W:.*]] = rvmem.la {immediate = #riscv.label<"weights">} : () -> !riscv.reg
// CHECK-NEXT:   %[[WEIGHTS:.*]] = builtin.unrealized_conversion_cast %[[W]] : !riscv.reg to memref<4xi32>
// CHECK-NEXT:   %[[V0:.*]] = builtin.unrealized_conversion_cast %workspace : memref<64xi8> to memref<2xi32>
// CHECK-NEXT:   %[[BASE:.*]] = builtin.unrealized_conversion_cast %workspace : memref<64xi8> to !riscv.reg
// CHECK-NEXT:   %[[ADDRESS:.*]] = riscv.addi %[[BASE]], 16 : (!riscv.reg) -> !riscv.reg
// CHECK-NEXT:   %[[V16:.*]] = builtin.unrealized_conversion_cast %[[ADDRESS]] : !riscv.reg to memref<2xi32>
// CHECK-NEXT:   func.return %[[WEIGHTS]], %[[V0]], %[[V16]]
