// RUN: bitfold-opt --allow-unregistered-dialect %s | filecheck %s
// RUN: bitfold-opt --allow-unregistered-dialect %s | bitfold-opt --allow-unregistered-dialect | filecheck %s
// RUN: bitfold-opt --allow-unregistered-dialect %s --print-op-generic | bitfold-opt --allow-unregistered-dialect | filecheck %s

// Every form of !quant.uniform that upstream MLIR's grammar accepts; the CHECK lines are
// what mlir-opt-22 prints for the same input (tests/dialects/test_mlir_opt_roundtrip.py
// checks that bitfold and mlir-opt still agree).

"test.op"() {t0 = !quant.uniform<i8:f32, 0.1:-3>} : () -> ()
"test.op"() {t1 = !quant.uniform<i8:f32, 1.0>} : () -> ()
"test.op"() {t2 = !quant.uniform<i8<-8:7>:f32, 0.5:-1>} : () -> ()
"test.op"() {t3 = !quant.uniform<i8<-127:127>:f32, 0.02>} : () -> ()
"test.op"() {t4 = !quant.uniform<u8:f32, 0.0039215686274509803:128>} : () -> ()
"test.op"() {t5 = !quant.uniform<u8<0:15>:f32, 0.25:3>} : () -> ()
"test.op"() {t6 = !quant.uniform<i4:f16, 0.5>} : () -> ()
"test.op"() {t7 = !quant.uniform<u4:bf16, 0.125:8>} : () -> ()
"test.op"() {t8 = !quant.uniform<i16:f64, 3.0517578125e-05>} : () -> ()
"test.op"() {t9 = !quant.uniform<i32:f32, 1.2345678900000001E-10>} : () -> ()
"test.op"() {t10 = !quant.uniform<u32:f32, 2.0>} : () -> ()
"test.op"() {t11 = !quant.uniform<i1:f32, 1.0>} : () -> ()
"test.op"() {t12 = !quant.uniform<u1:f32, 1.0>} : () -> ()
"test.op"() {t13 = !quant.uniform<si8:f32, 0.5>} : () -> ()
"test.op"() {t14 = !quant.uniform<ui8:f32, 0.5:255>} : () -> ()
"test.op"() {t15 = !quant.uniform<i2:f32, 123456.7>} : () -> ()
"test.op"() {t16 = !quant.uniform<i8:f32, 0x41678C29C0000000>} : () -> ()
"test.op"() {t17 = !quant.uniform<u8:f32:1, {0.1:128, 0.2:120, 3.0e-7}>} : () -> ()
"test.op"() {t18 = !quant.uniform<i8<-127:127>:f32:0, {0.5,0.25,0.125}>} : () -> ()
"test.op"() {t19 = !quant.uniform<i8:f32:3, {1.0:-1}>} : () -> ()
"test.op"() {t20 = !quant.uniform<i4:f32:{0:1, 1:2}, {{0.5:1, 0.25:2}, {0.125, 0.0625:-1}}>} : () -> ()
"test.op"() {t21 = !quant.uniform<i4:f32:{1:32}, {{0.5, 0.25}}>} : () -> ()
"test.op"() {t22 = !quant.uniform<u4:f16:{0:2}, {{0.5:8}, {0.1:7}}>} : () -> ()
"test.op"() {t23 = !quant.uniform<i8:f32:{}, {{1.0}}>} : () -> ()

// CHECK:      builtin.module {
// CHECK-NEXT:   "test.op"() {t0 = !quant.uniform<i8:f32, 1.000000e-01:-3>} : () -> ()
// CHECK-NEXT:   "test.op"() {t1 = !quant.uniform<i8:f32, 1.000000e+00>} : () -> ()
// CHECK-NEXT:   "test.op"() {t2 = !quant.uniform<i8<-8:7>:f32, 5.000000e-01:-1>} : () -> ()
// CHECK-NEXT:   "test.op"() {t3 = !quant.uniform<i8<-127:127>:f32, 2.000000e-02>} : () -> ()
// CHECK-NEXT:   "test.op"() {t4 = !quant.uniform<u8:f32, 0.0039215686274509803:128>} : () -> ()
// CHECK-NEXT:   "test.op"() {t5 = !quant.uniform<u8<0:15>:f32, 2.500000e-01:3>} : () -> ()
// CHECK-NEXT:   "test.op"() {t6 = !quant.uniform<i4:f16, 5.000000e-01>} : () -> ()
// CHECK-NEXT:   "test.op"() {t7 = !quant.uniform<u4:bf16, 1.250000e-01:8>} : () -> ()
// CHECK-NEXT:   "test.op"() {t8 = !quant.uniform<i16:f64, 3.0517578125E-5>} : () -> ()
// CHECK-NEXT:   "test.op"() {t9 = !quant.uniform<i32:f32, 1.2345678900000001E-10>} : () -> ()
// CHECK-NEXT:   "test.op"() {t10 = !quant.uniform<u32:f32, 2.000000e+00>} : () -> ()
// CHECK-NEXT:   "test.op"() {t11 = !quant.uniform<i1:f32, 1.000000e+00>} : () -> ()
// CHECK-NEXT:   "test.op"() {t12 = !quant.uniform<u1:f32, 1.000000e+00>} : () -> ()
// CHECK-NEXT:   "test.op"() {t13 = !quant.uniform<i8:f32, 5.000000e-01>} : () -> ()
// CHECK-NEXT:   "test.op"() {t14 = !quant.uniform<u8:f32, 5.000000e-01:255>} : () -> ()
// CHECK-NEXT:   "test.op"() {t15 = !quant.uniform<i2:f32, 123456.7>} : () -> ()
// CHECK-NEXT:   "test.op"() {t16 = !quant.uniform<i8:f32, 0x41678C29C0000000>} : () -> ()
// CHECK-NEXT:   "test.op"() {t17 = !quant.uniform<u8:f32:1, {1.000000e-01:128,2.000000e-01:120,3.000000e-07}>} : () -> ()
// CHECK-NEXT:   "test.op"() {t18 = !quant.uniform<i8<-127:127>:f32:0, {5.000000e-01,2.500000e-01,1.250000e-01}>} : () -> ()
// CHECK-NEXT:   "test.op"() {t19 = !quant.uniform<i8:f32:3, {1.000000e+00:-1}>} : () -> ()
// CHECK-NEXT:   "test.op"() {t20 = !quant.uniform<i4:f32:{0:1, 1:2}, {{[{][{]}}5.000000e-01:1, 2.500000e-01:2}, {1.250000e-01, 6.250000e-02:-1}}>} : () -> ()
// CHECK-NEXT:   "test.op"() {t21 = !quant.uniform<i4:f32:{1:32}, {{[{][{]}}5.000000e-01, 2.500000e-01}}>} : () -> ()
// CHECK-NEXT:   "test.op"() {t22 = !quant.uniform<u4:f16:{0:2}, {{[{][{]}}5.000000e-01:8}, {9.997550e-02:7}}>} : () -> ()
// Upstream prints the unsigned zero point 8 of t22 as its signed storage bits (-8); bitfold prints 8.
// CHECK-NEXT:   "test.op"() {t23 = !quant.uniform<i8:f32:{}, {{[{][{]}}1.000000e+00}}>} : () -> ()
// CHECK-NEXT: }
