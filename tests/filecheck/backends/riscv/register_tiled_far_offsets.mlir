// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// The accumulators of a 4 x 4 tile over i32 rows 1024 bytes apart sit at offsets 0..3084 from the
// output pointer: those beyond an immediate (2048 and up) are reached from one extra base, the
// pointer plus 4096 (`loop_nest_plan.base_window`): one `lui` and an `add` (no `addi` of -2048),
// then immediates -2048..-1012.

func.func @far(%x: memref<8x16xi8>, %w: memref<16x256xi8>, %out: memref<8x256xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<8x16xi8>, memref<16x256xi8>) outs(%out : memref<8x256xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }
  func.return
}

// CHECK:      rvmem.lw %[[OUT:.*]], 1036 :
// CHECK:      %[[UPPER:.*]] = riscv.lui 1
// CHECK-NEXT: %[[BASE:.*]] = riscv.add %[[OUT]], %[[UPPER]]
// CHECK-NEXT: rvmem.lw %[[BASE]], -2048 :
// CHECK:      rvmem.lw %{{.*}}, -1012 :
