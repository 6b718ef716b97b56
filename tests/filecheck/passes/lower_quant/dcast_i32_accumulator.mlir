// RUN: bitfold-opt %s -p lower-quant | filecheck %s

// An i32 accumulator entering a float island: q and q - zp fit in i32, so the dcast converts the i32
// itself (no i64, which rv32 lacks); a u32 value above 2^31 - 1 still widens to i64 by extui.

func.func @accumulator(%q: tensor<4x!quant.uniform<i32<-70486:70486>:f32, 2.0E-4>>) -> tensor<4xf32> {
  %x = quant.dcast %q : tensor<4x!quant.uniform<i32<-70486:70486>:f32, 2.0E-4>> to tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// CHECK-LABEL: func.func @accumulator
// CHECK-NOT:      i64
// CHECK:          %{{.*}} = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NOT:      i64
// CHECK:        func.return

func.func @unsigned(%q: tensor<4x!quant.uniform<u32:f32, 0.5:7>>) -> tensor<4xf32> {
  %x = quant.dcast %q : tensor<4x!quant.uniform<u32:f32, 0.5:7>> to tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// CHECK-LABEL: func.func @unsigned
// CHECK:          %{{.*}} = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:     %{{.*}} = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:     %{{.*}} = arith.sitofp %{{.*}} : i64 to f32
