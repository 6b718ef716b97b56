// RUN: bitfold-opt %s -p canonicalize-quant | filecheck %s

// Two identical fake quantizations back to back collapse to one: the second qcast reads the
// dcast of its own type and every stored value survives the round trip.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<4xf32>
  %q2 = quant.qcast %d : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  %d2 = quant.dcast %q2 : tensor<4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<4xf32>
  func.return %d2 : tensor<4xf32>
}
// CHECK:      func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.000000e-01:-3>>
// CHECK-NEXT:   %d2 = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 1.000000e-01:-3>> to tensor<4xf32>
// CHECK-NEXT:   func.return %d2 : tensor<4xf32>
