// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// A ceil qcast of dcast values is not an identity: fl(fl(n * 0.1) / 0.1) can exceed n by an
// ulp, which ceil rounds up (18 of the 256 i8 values). Kept.
func.func @f(%y: tensor<4x!quant.uniform<i8:f32, 0.1:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.1:-3>> {
  %x = quant.dcast %y : tensor<4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<4xf32>
  %z = quant.qcast %x {rounding = "ceil"} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  func.return %z : tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
}
// CHECK:      %x = quant.dcast %y
// CHECK-NEXT: %z = quant.qcast %x {rounding = "ceil"}
// CHECK-NEXT: func.return %z
