// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32im symbol=k}' | filecheck %s
// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv64im symbol=k}' | filecheck %s --check-prefix=RV64

// bitfold-riscv-expand-calls: a libcall after register allocation saves the caller-saved
// registers the function uses above the spill slots, loads its arguments into a0/a1 from their
// save slots, calls, moves a0 to the result register (sext.w on RV64) and restores the others;
// the prologue saves ra (the function is no leaf any more).

func.func @k(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK:      k:
// CHECK-NEXT:     addi sp, sp, -{{[0-9]+}}
// CHECK-NEXT:     sw ra, [[RA:[0-9]+]](sp)
// CHECK:          lw [[X:[ast][0-9]]], 0(
// CHECK:          lw [[Y:[ast][0-9]]], 0(
// CHECK:          sw [[X]], [[XS:[0-9]+]](sp)
// CHECK:          lw a0, [[XS]](sp)
// CHECK-NEXT:     lw a1, {{[0-9]+}}(sp)
// CHECK-NEXT:     call __mulsf3
// CHECK-NEXT:     mv [[R:[ast][0-9]]], a0
// CHECK:          sw [[R]], 0(
// CHECK:          lw ra, [[RA]](sp)
// CHECK-NEXT:     addi sp, sp, {{[0-9]+}}
// CHECK-NEXT:     ret

// RV64:           sd ra, {{[0-9]+}}(sp)
// RV64:           call __mulsf3
// RV64-NEXT:      addiw {{[ast][0-9]}}, a0, 0 {{.*}}sext.w
