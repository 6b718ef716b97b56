// RUN: bitfold-opt %s --split-input-file -p 'bitfold-riscv-register-tiled-loops{xlen=32}' | filecheck %s

// A stride-2 convolution's "same" padding (nothing before, one row and one column after), as
// onnx-data-movement-to-linalg writes it: index arithmetic per element (clamped indices, a load,
// a selection of the pad value). The register-tiled pass makes it a fill of the pad value and a
// copy of the source through `d floordiv 1` (padding_copies.py), both pointer nests: the copy
// reads each source row with lb and stores it with sb, no linalg.index, no selection.

func.func @pad(%x: memref<1x2x6x6xi8>, %out: memref<1x2x7x7xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%out : memref<1x2x7x7xi8>) {
  ^bb0(%0: i8):
    %1 = linalg.index 0 : index
    %2 = linalg.index 1 : index
    %3 = linalg.index 2 : index
    %4 = arith.constant 5 : index
    %5 = arith.minsi %3, %4 : index
    %6 = arith.cmpi eq, %3, %5 : index
    %7 = linalg.index 3 : index
    %8 = arith.minsi %7, %4 : index
    %9 = arith.cmpi eq, %7, %8 : index
    %10 = arith.andi %6, %9 : i1
    %11 = memref.load %x[%1, %2, %5, %8] : memref<1x2x6x6xi8>
    %12 = arith.constant -128 : i8
    %13 = arith.select %10, %11, %12 : i8
    linalg.yield %13 : i8
  }
  func.return
}

// CHECK-LABEL: func.func @pad
// CHECK-NOT:   linalg.index
// CHECK:       riscv_scf.for
// CHECK:         rvmem.sb %{{.*}}, %{{.*}}, 0
// CHECK:       riscv_scf.for
// CHECK:         riscv_scf.for
// CHECK:           rvmem.lb %{{.*}}, 0
// CHECK:           rvmem.sb %{{.*}}, %{{.*}}, 0
// CHECK-NOT:   arith.select
// CHECK-NOT:   linalg.generic
// CHECK:       func.return

// -----

// Edge padding (the clamped read itself, no selection) is not a constant pad: it stays.

func.func @edge(%x: memref<6xi8>, %out: memref<7xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%out : memref<7xi8>) {
  ^bb0(%0: i8):
    %1 = linalg.index 0 : index
    %2 = arith.constant 5 : index
    %3 = arith.minsi %1, %2 : index
    %4 = memref.load %x[%3] : memref<6xi8>
    linalg.yield %4 : i8
  }
  func.return
}

// CHECK-LABEL: func.func @edge
// CHECK:       linalg.index 0
// CHECK:       memref.load
