// RUN: bitfold-opt %s | filecheck %s
// RUN: bitfold-opt %s --print-op-generic | bitfold-opt | filecheck %s

// The casts in upstream's assembly format; bitfold's rounding attributes and quant.requant.

func.func @casts(%x: tensor<2x3xf32>, %s: f32, %i: tensor<2x3xi8>) {
  %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32:1, {0.1:128, 0.2:120, 0.3}>>
  %d = quant.dcast %q : tensor<2x3x!quant.uniform<u8:f32:1, {0.1:128, 0.2:120, 0.3}>> to tensor<2x3xf32>
  %qs = quant.qcast %s : f32 to !quant.uniform<i8:f32, 0.5:-3>
  %b = quant.scast %i : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8<-8:7>:f32, 0.25>>
  %i2 = quant.scast %b : tensor<2x3x!quant.uniform<i8<-8:7>:f32, 0.25>> to tensor<2x3xi8>
  func.return
}

// CHECK-LABEL: func.func @casts
// CHECK-NEXT:    %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32:1, {1.000000e-01:128,2.000000e-01:120,3.000000e-01}>>
// CHECK-NEXT:    %d = quant.dcast %q : tensor<2x3x!quant.uniform<u8:f32:1, {1.000000e-01:128,2.000000e-01:120,3.000000e-01}>> to tensor<2x3xf32>
// CHECK-NEXT:    %qs = quant.qcast %s : f32 to !quant.uniform<i8:f32, 5.000000e-01:-3>
// CHECK-NEXT:    %b = quant.scast %i : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8<-8:7>:f32, 2.500000e-01>>
// CHECK-NEXT:    %i2 = quant.scast %b : tensor<2x3x!quant.uniform<i8<-8:7>:f32, 2.500000e-01>> to tensor<2x3xi8>

func.func @blocked(%x: tensor<2x64xf32>) {
  %q = quant.qcast %x : tensor<2x64xf32> to tensor<2x64x!quant.uniform<i4:f32:{0:1, 1:32}, {{0.5, 0.25}, {0.125:1, 0.0625:-1}}>>
  func.return
}

// CHECK-LABEL: func.func @blocked
// CHECK-NEXT:    %q = quant.qcast %x : tensor<2x64xf32> to tensor<2x64x!quant.uniform<i4:f32:{0:1, 1:32}, {{[{][{]}}5.000000e-01, 2.500000e-01}, {1.250000e-01:1, 6.250000e-02:-1}}>>

func.func @qonnx_rounding(%x: tensor<4xf32>) {
  %q = quant.qcast %x {rounding = "half_away_from_zero", zero_point_first} : tensor<4xf32> to tensor<4x!quant.uniform<u8<0:15>:f32, 0.5:3>>
  %c = quant.qcast %x {rounding = "ceil"} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return
}

// CHECK-LABEL: func.func @qonnx_rounding
// CHECK-NEXT:    %q = quant.qcast %x {rounding = "half_away_from_zero", zero_point_first} : tensor<4xf32> to tensor<4x!quant.uniform<u8<0:15>:f32, 5.000000e-01:3>>
// CHECK-NEXT:    %c = quant.qcast %x {rounding = "ceil"} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>

func.func @bipolar(%x: tensor<3x2xf32>) {
  %q = quant.qcast %x : tensor<3x2xf32> to tensor<3x2x!quant.bipolar<f32, 0.5>>
  %p = quant.qcast %x : tensor<3x2xf32> to tensor<3x2x!quant.bipolar<f32:0, {0.5, 0.25, 1.0}>>
  %d = quant.dcast %p : tensor<3x2x!quant.bipolar<f32:0, {0.5, 0.25, 1.0}>> to tensor<3x2xf32>
  %s = quant.scast %q : tensor<3x2x!quant.bipolar<f32, 0.5>> to tensor<3x2xi1>
  func.return
}

// CHECK-LABEL: func.func @bipolar
// CHECK-NEXT:    %q = quant.qcast %x : tensor<3x2xf32> to tensor<3x2x!quant.bipolar<f32, 5.000000e-01>>
// CHECK-NEXT:    %p = quant.qcast %x : tensor<3x2xf32> to tensor<3x2x!quant.bipolar<f32:0, {5.000000e-01,2.500000e-01,1.000000e+00}>>
// CHECK-NEXT:    %d = quant.dcast %p : tensor<3x2x!quant.bipolar<f32:0, {5.000000e-01,2.500000e-01,1.000000e+00}>> to tensor<3x2xf32>
// CHECK-NEXT:    %s = quant.scast %q : tensor<3x2x!quant.bipolar<f32, 5.000000e-01>> to tensor<3x2xi1>

func.func @requant(%acc: tensor<4x!quant.uniform<i32:f32, 0.001>>, %t: tensor<4x!quant.uniform<i16:f32, 0.25>>) {
  %r = quant.requant %acc : tensor<4x!quant.uniform<i32:f32, 0.001>> to tensor<4x!quant.uniform<i8:f32, 0.05:-2>>
  %u = quant.requant %t {rounding = "floor", zero_point_first} : tensor<4x!quant.uniform<i16:f32, 0.25>> to tensor<4x!quant.uniform<i8<-8:7>:f32, 4.0>>
  func.return
}

// CHECK-LABEL: func.func @requant
// CHECK-NEXT:    %r = quant.requant %acc : tensor<4x!quant.uniform<i32:f32, 1.000000e-03>> to tensor<4x!quant.uniform<i8:f32, 5.000000e-02:-2>>
// CHECK-NEXT:    %u = quant.requant %t {rounding = "floor", zero_point_first} : tensor<4x!quant.uniform<i16:f32, 2.500000e-01>> to tensor<4x!quant.uniform<i8<-8:7>:f32, 4.000000e+00>>

// quant.scast also takes the signed / unsigned integer type of the storage's signedness
// (ONNX imports uint8 as ui8).
func.func @signed_storage(%u: tensor<4xui8>, %s: tensor<4xsi4>) {
  %q = quant.scast %u : tensor<4xui8> to tensor<4x!quant.uniform<u8:f32, 0.5:128>>
  %t = quant.scast %s : tensor<4xsi4> to tensor<4x!quant.uniform<i4:f32, 0.5>>
  func.return
}

// CHECK-LABEL: func.func @signed_storage
// CHECK-NEXT:    %q = quant.scast %u : tensor<4xui8> to tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT:    %t = quant.scast %s : tensor<4xsi4> to tensor<4x!quant.uniform<i4:f32, 5.000000e-01>>
