// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32imf symbol=k}' | filecheck %s
// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32im symbol=k}' | filecheck %s --check-prefix=SOFT

// A float reduction: the accumulator is a loop-carried f register (loop_allocation.py keeps it
// out of the registers other values of the body take: keys are (pool, index), so ft0 and t0 are
// different registers), summed in order, one rounding per addition. Without F the accumulator is
// carried as its bits in an integer register and each addition is a call of __addsf3.

func.func @k(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<4xf32>) {
  ^bb0(%o: f32):
    %c0 = arith.constant 0.0 : f32
    linalg.yield %c0 : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK:       flw [[ACC:ft[0-9]+]], 0(
// CHECK:       scf_body_1_for:
// CHECK:       flw [[X:ft[0-9]+]], 0(
// CHECK-NEXT:  fadd.s [[ACC]], [[ACC]], [[X]], rne
// CHECK:       scf_body_end_1_for:
// CHECK-NEXT:  add
// CHECK-NEXT:  fsw [[ACC]], 0(

// SOFT:        scf_body_1_for:
// SOFT:        call __addsf3
// SOFT:        scf_body_end_1_for:
