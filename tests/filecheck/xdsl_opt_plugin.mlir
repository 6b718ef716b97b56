// RUN: xdsl-opt %s -p canonicalize | filecheck %s

// Plain xdsl-opt knows the quant dialect and its canonicalization patterns through bitfold's
// `xdsl.universe` entry point, once bitfold is installed.
func.func @f(%i: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xf32>) {
  %q = quant.scast %i : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  %j = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xi8>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf32>
  %x = quant.qcast %d : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.1:128>>
  %e = quant.dcast %x : tensor<4x!quant.uniform<u8:f32, 0.1:128>> to tensor<4xf32>
  func.return %j, %e : tensor<4xi8>, tensor<4xf32>
}
// CHECK:      %q = quant.scast %i : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK-NEXT: %d = quant.dcast %q
// CHECK-NEXT: %x = quant.qcast %d : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK-NEXT: %e = quant.dcast %x
// CHECK-NEXT: func.return %i, %e
