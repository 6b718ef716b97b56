// RUN: bitfold-opt %s -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A constant fill of a byte buffer in the workspace (a padded input's zero point before its
// interior is copied in, backends/riscv/schedule/wide_fills.py) is stored a word at a time: the
// 2 x 4 x 8 = 64 bytes at offset 8 become 16 words of 0xFDFDFDFD (-33686019, four bytes of -3),
// 4 `sw` an iteration. A fill at an offset that is not a multiple of 4 keeps its byte stores.

func.func @fills(%workspace: memref<128xi8>) {
  %offset = arith.constant 8 : index
  %padded = memref.view %workspace[%offset][] : memref<128xi8> to memref<1x2x4x8xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<1x2x4x8xi8>) {
  ^bb0(%o: i8):
    %c = arith.constant -3 : i8
    linalg.yield %c : i8
  }
  %odd = arith.constant 82 : index
  %unaligned = memref.view %workspace[%odd][] : memref<128xi8> to memref<8xi8>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%unaligned : memref<8xi8>) {
  ^bb0(%o: i8):
    %c = arith.constant 5 : i8
    linalg.yield %c : i8
  }
  func.return
}

// CHECK:      memref.view %workspace[%offset][] : memref<128xi8> to memref<16xi32>
// CHECK:      riscv_scf.for %[[P:.*]] : !riscv.reg = %{{.*}} step 16 : si12 {
// CHECK-NEXT:   arith.constant -33686019 : i32
// CHECK:        rvmem.sw %[[P]], %{{.*}}, 0
// CHECK:        rvmem.sw %[[P]], %{{.*}}, 4
// CHECK:        rvmem.sw %[[P]], %{{.*}}, 8
// CHECK:        rvmem.sw %[[P]], %{{.*}}, 12
// CHECK-NEXT: } {bitfold.nest
// CHECK:      riscv_scf.for %[[Q:.*]] : !riscv.reg = %{{.*}} step 4 : si12 {
// CHECK-NEXT:   %{{.*}} = arith.constant 5 : i8
// CHECK:        rvmem.sb %[[Q]], %{{.*}}, 0
// CHECK:        rvmem.sb %[[Q]], %{{.*}}, 3
// CHECK-NEXT: } {bitfold.nest
// CHECK-NOT:  linalg.generic
