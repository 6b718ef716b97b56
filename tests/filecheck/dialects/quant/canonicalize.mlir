// RUN: bitfold-opt %s -p canonicalize --split-input-file | filecheck %s

// qcast(dcast(y)) with the same type on both ends returns y: every stored value survives the
// round trip through f32 exactly under a round-to-nearest mode.
func.func @requantize_same_type(%y: tensor<4x!quant.uniform<i8:f32, 0.1:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.1:-3>> {
  %x = quant.dcast %y : tensor<4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<4xf32>
  %z = quant.qcast %x {rounding = "half_away_from_zero", zero_point_first} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  func.return %z : tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
}
// CHECK-LABEL: func.func @requantize_same_type
// CHECK-NEXT:    func.return %y

// -----

// Under ceil, fl(fl(n * 0.1) / 0.1) lands an ulp above some integers n, which ceil moves to
// n + 1: not an identity, kept.
func.func @requantize_same_type_ceil(%y: tensor<4x!quant.uniform<i8:f32, 0.1:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.1:-3>> {
  %x = quant.dcast %y : tensor<4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<4xf32>
  %z = quant.qcast %x {rounding = "ceil"} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  func.return %z : tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
}
// CHECK-LABEL: func.func @requantize_same_type_ceil
// CHECK-NEXT:    %x = quant.dcast %y
// CHECK-NEXT:    %z = quant.qcast %x
// CHECK-NEXT:    func.return %z

// -----

// A different scale is a real requantization: kept.
func.func @requantize_other_scale(%y: tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.2>> {
  %x = quant.dcast %y : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf32>
  %z = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.2>>
  func.return %z : tensor<4x!quant.uniform<i8:f32, 0.2>>
}
// CHECK-LABEL: func.func @requantize_other_scale
// CHECK-NEXT:    %x = quant.dcast %y
// CHECK-NEXT:    %z = quant.qcast %x
// CHECK-NEXT:    func.return %z

// -----

// i32 values do not all survive f32 (24-bit significand): kept.
func.func @requantize_wide_storage(%y: tensor<4x!quant.uniform<i32:f32, 0.5>>) -> tensor<4x!quant.uniform<i32:f32, 0.5>> {
  %x = quant.dcast %y : tensor<4x!quant.uniform<i32:f32, 0.5>> to tensor<4xf32>
  %z = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i32:f32, 0.5>>
  func.return %z : tensor<4x!quant.uniform<i32:f32, 0.5>>
}
// CHECK-LABEL: func.func @requantize_wide_storage
// CHECK-NEXT:    %x = quant.dcast %y
// CHECK-NEXT:    %z = quant.qcast %x
// CHECK-NEXT:    func.return %z

// -----

// dcast(qcast(x)) is the fake quantization the model asks for: never folded (upstream MLIR
// folds it to x).
func.func @fake_quantization_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf32>
  func.return %d : tensor<4xf32>
}
// CHECK-LABEL: func.func @fake_quantization_kept
// CHECK-NEXT:    %q = quant.qcast %x
// CHECK-NEXT:    %d = quant.dcast %q
// CHECK-NEXT:    func.return %d

// -----

// scast(scast(x)) back to x's type is x.
func.func @storage_cast_pair(%i: tensor<4xi8>) -> tensor<4xi8> {
  %q = quant.scast %i : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  %j = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xi8>
  func.return %j : tensor<4xi8>
}
// CHECK-LABEL: func.func @storage_cast_pair
// CHECK-NEXT:    func.return %i

// -----

// Reinterpreting the same bits under another quantized type is not an identity: kept.
func.func @storage_cast_other_type(%q: tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.2>> {
  %i = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xi8>
  %r = quant.scast %i : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 0.2>>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.2>>
}
// CHECK-LABEL: func.func @storage_cast_other_type
// CHECK-NEXT:    %i = quant.scast %q
// CHECK-NEXT:    %r = quant.scast %i
// CHECK-NEXT:    func.return %r
