// RUN: bitfold-opt %s --allow-unregistered-dialect --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// One diagnostic per invalid !quant.uniform; wording as upstream MLIR's parser and verifier
// (zero point range and NaN are bitfold's own checks: upstream accepts both).


"test.op"() {t = !quant.uniform<i33:f32, 1.0>} : () -> ()
// CHECK: illegal storage type size: 33

// -----

"test.op"() {t = !quant.uniform<i0:f32, 1.0>} : () -> ()
// CHECK: illegal storage type size: 0

// -----

"test.op"() {t = !quant.uniform<x8:f32, 1.0>} : () -> ()
// CHECK: illegal storage type prefix

// -----

"test.op"() {t = !quant.uniform<i8:f32, 0.0>} : () -> ()
// CHECK: scale 0.000000e+00 out of expressed type range [1.401298e-45, 3.402823e+38]

// -----

"test.op"() {t = !quant.uniform<i8:f32, -1.0>} : () -> ()
// CHECK: scale -1.000000e+00 out of expressed type range [1.401298e-45, 3.402823e+38]

// -----

"test.op"() {t = !quant.uniform<i8:f32, 0x7FF8000000000000>} : () -> ()
// CHECK: illegal scale: nan

// -----

"test.op"() {t = !quant.uniform<i8:f32, 0x7FF0000000000000>} : () -> ()
// CHECK: scale inf out of expressed type range [1.401298e-45, 3.402823e+38]

// -----

"test.op"() {t = !quant.uniform<i8:f32, 1.0e39>} : () -> ()
// CHECK: scale 1.000000e+39 out of expressed type range [1.401298e-45, 3.402823e+38]

// -----

"test.op"() {t = !quant.uniform<i8:f16, 1.0e5>} : () -> ()
// CHECK: scale 1.000000e+05 out of expressed type range [5.960464e-08, 6.550400e+04]

// -----

"test.op"() {t = !quant.uniform<i8:f32, 1>} : () -> ()
// CHECK: expected floating point literal

// -----

"test.op"() {t = !quant.uniform<i8:f32, 1.0:300>} : () -> ()
// CHECK: illegal zero point: 300 out of storage range [-128:127]

// -----

"test.op"() {t = !quant.uniform<u8:f32, 1.0:-1>} : () -> ()
// CHECK: illegal zero point: -1 out of storage range [0:255]

// -----

"test.op"() {t = !quant.uniform<i8<-8:7>:f32, 1.0:8>} : () -> ()
// CHECK: illegal zero point: 8 out of storage range [-8:7]

// -----

"test.op"() {t = !quant.uniform<u8:f32:0, {1.0:0, 1.0:256}>} : () -> ()
// CHECK: illegal zero point: 256 out of storage range [0:255]

// -----

"test.op"() {t = !quant.uniform<i8<-200:7>:f32, 1.0>} : () -> ()
// CHECK: illegal storage type minimum: -200

// -----

"test.op"() {t = !quant.uniform<i8<-8:200>:f32, 1.0>} : () -> ()
// CHECK: illegal storage type maximum: 200

// -----

"test.op"() {t = !quant.uniform<i8<7:-8>:f32, 1.0>} : () -> ()
// CHECK: illegal storage min and storage max: (7:-8)

// -----

"test.op"() {t = !quant.uniform<u8<-1:7>:f32, 1.0>} : () -> ()
// CHECK: illegal storage type minimum: -1

// -----

"test.op"() {t = !quant.uniform<i8:i32, 1.0>} : () -> ()
// CHECK: expressed type must be floating point

// -----

"test.op"() {t = !quant.uniform<i8:f32:-1, {1.0}>} : () -> ()
// CHECK: illegal quantized dimension: -1

// -----

"test.op"() {t = !quant.uniform<i8:f32:{-1:2}, {{1.0}}>} : () -> ()
// CHECK: illegal quantized dimension: -1

// -----

"test.op"() {t = !quant.uniform<i8:f32:{1:0}, {{1.0}}>} : () -> ()
// CHECK: illegal block size: 0

// -----

"test.op"() {t = !quant.uniform<i8:f32:{1:-2}, {{1.0}}>} : () -> ()
// CHECK: illegal block size: -2

// -----

"test.op"() {t = !quant.uniform<i8:f32:{1:2}, {{1.0, 1.0}, {1.0}}>} : () -> ()
// CHECK: tensor literal is invalid; ranks are not consistent between elements

// -----

"test.op"() {t = !quant.uniform<i8:f32:1, {{1.0}}>} : () -> ()
// CHECK: per-axis scales must be a flat list
