// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv64imfd symbol=k}' | filecheck %s
// RUN: bitfold-opt %s -t 'bitfold-riscv-asm{arch=rv32imf symbol=k}' | filecheck %s

// A float island as lower-quant writes a qcast (divf, roundeven, clamp, fptosi): f32 loads and
// stores are flw / fsw, every rounding op carries its static mode, no fused multiply-add.

func.func @k(%a: tensor<16xf32>) -> tensor<16xi32> {
  %e = tensor.empty() : tensor<16xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<16xf32>) outs(%e : tensor<16xi32>) {
  ^bb0(%x: f32, %o: i32):
    %s = arith.constant 0.25 : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %v = arith.divf %x, %s : f32
    %q = math.roundeven %v : f32
    %c0 = arith.maximumf %q, %lo : f32
    %c1 = arith.minimumf %c0, %hi : f32
    %i = arith.fptosi %c1 : f32 to i32
    linalg.yield %i : i32
  } -> tensor<16xi32>
  func.return %r : tensor<16xi32>
}

// CHECK:       flw {{ft[0-9]+}}, 0(
// CHECK:       fdiv.s {{ft[0-9]+}}, {{ft[0-9]+}}, {{ft[0-9]+}}, rne
// CHECK:       fadd.s {{ft[0-9]+}}, {{ft[0-9]+}}, {{ft[0-9]+}}, rne
// CHECK-NEXT:  fsub.s {{ft[0-9]+}}, {{ft[0-9]+}}, {{ft[0-9]+}}, rne
// CHECK:       fmax.s
// CHECK:       fmin.s
// CHECK:       fcvt.w.s {{[ast][0-9]+}}, {{ft[0-9]+}}, rtz
// CHECK-NOT:   fmadd
// CHECK:       sw
