"""The kernel header compiles warning-free as C99 for RISC-V and the host and states the right values."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import require_tools

from bitfold.backends.kernel.header import Buffer, Quantization, c_header

WARNINGS = ("-Wall", "-Wextra", "-pedantic", "-Werror")
COMPILERS = {
    "riscv64-linux-gnu-gcc": ("-std=c99",),
    "gcc": ("-std=c99",),
    "clang-19": ("-std=c99",),
    "g++": ("-x", "c++", "-std=c++11"),
}

PER_TENSOR = (
    "model",
    [Buffer("input.1", (1, 3, 4, 4), "uint8_t", Quantization(0.0235, 128))],
    [Buffer("output", (1, 10), "int8_t", Quantization(0.125, -3))],
    1234,
)
PER_CHANNEL = (
    "conv_kernel",
    [Buffer("123", (1, 2, 3, 3), "int8_t", Quantization(2.0**-7, -128)),
     Buffer("weights", (4, 2, 3, 3), "int8_t", Quantization([0.01, 0.02, 0.5, 1e-9], 0, axis=0), (-8, 7))],
    [Buffer("conv/out:0", (1, 4, 3, 3), "uint8_t", Quantization([0.1, 0.2, 0.3, 0.4], [0, 1, 2, 255], axis=-3))],
    0,
)
ODD_NAMES = (
    "odd",
    [Buffer("int", (2,), "int16_t"), Buffer("a.b", (), "uint16_t"), Buffer("a:b", (3,), "int32_t")],
    [Buffer("A/B", (5,), "uint32_t", Quantization(1.0, 0)), Buffer("_", (0,), "int32_t"),
     Buffer("workspace", (1,), "int8_t")],
    64,
)
CASES = {"per_tensor": PER_TENSOR, "per_channel": PER_CHANNEL, "odd_names": ODD_NAMES}


def available(compiler: str) -> str:
    require_tools(compiler)
    return shutil.which(compiler)


def prototype(header: str) -> str:
    return next(line for line in header.splitlines() if line.startswith("void "))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("compiler", COMPILERS)
def test_header_compiles_without_warnings(tmp_path, compiler, case):
    available(compiler)
    (tmp_path / f"{CASES[case][0]}.h").write_text(c_header(*CASES[case]))
    symbol = CASES[case][0]
    source = tmp_path / "use.c"
    # Included twice (the guard), every per-channel initializer used, the prototype matched by a definition.
    source.write_text(f'#include "{symbol}.h"\n#include "{symbol}.h"\n' + {
        "per_tensor": "const float input_scale = MODEL_INPUT_1_SCALE;\n"
                      "int8_t buffer[MODEL_OUTPUT_BYTES];\n"
                      "union model_arena { unsigned char bytes[MODEL_WORKSPACE_SIZE]; uint64_t aligned; } arena;\n"
                      "const int alignment = MODEL_WORKSPACE_ALIGNMENT;\n"
                      "void model(const uint8_t *input_1, int8_t *output, void *workspace)"
                      " { (void)input_1; (void)output; (void)workspace; }\n",
        "per_channel": "const float scales[CONV_KERNEL_WEIGHTS_CHANNELS] = CONV_KERNEL_WEIGHTS_SCALES;\n"
                       "const int zero_points[] = CONV_KERNEL_CONV_OUT_0_ZERO_POINTS;\n"
                       "const int shape[CONV_KERNEL_T_123_RANK] = CONV_KERNEL_T_123_SHAPE;\n"
                       "const unsigned long no_workspace = CONV_KERNEL_WORKSPACE_SIZE;\n"
                       "void conv_kernel(const int8_t *t_123, const int8_t *weights, uint8_t *conv_out_0,"
                       " void *workspace) { (void)t_123; (void)weights; (void)conv_out_0; (void)workspace; }\n",
        "odd_names": "const long long elements = ODD_T_INT_ELEMENTS + ODD_A_B_ELEMENTS + ODD_T_ELEMENTS;\n"
                     "const unsigned long long high = ODD_A_B_3_MAX;\n"
                     "const int8_t buffer_named_workspace[ODD_WORKSPACE_2_ELEMENTS] = {0};\n"
                     "void odd(const int16_t *t_int, const uint16_t *a_b, const int32_t *a_b_2, uint32_t *A_B_3,"
                     " int32_t *t, int8_t *workspace_2, void *workspace) { (void)t_int; (void)a_b; (void)a_b_2;"
                     " (void)A_B_3; (void)t; (void)workspace_2; (void)workspace; }\n",
    }[case])
    done = subprocess.run([compiler, *COMPILERS[compiler], *WARNINGS, "-c", str(source), "-o", str(tmp_path / "use.o")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_identifiers_from_onnx_names():
    assert prototype(c_header(*ODD_NAMES)) == (
        "void odd(const int16_t *t_int, const uint16_t *a_b, const int32_t *a_b_2, uint32_t *A_B_3, int32_t *t,"
        " int8_t *workspace_2, void *workspace);"
    )
    assert prototype(c_header(*PER_CHANNEL)) == (
        "void conv_kernel(const int8_t *t_123, const int8_t *weights, uint8_t *conv_out_0, void *workspace);"
    )


def test_workspace_is_the_last_argument_and_its_size_a_macro():
    header = c_header(*PER_TENSOR)
    assert prototype(header) == "void model(const uint8_t *input_1, int8_t *output, void *workspace);"
    assert "#define MODEL_WORKSPACE_SIZE 1234\n" in header
    assert "#define MODEL_WORKSPACE_ALIGNMENT 8\n" in header
    assert "MODEL_WORKSPACE_SIZE bytes (possibly 0) the caller" in header  # the ABI, in the header comment
    assert "#define CONV_KERNEL_WORKSPACE_SIZE 0\n" in c_header(*PER_CHANNEL)


def test_macros_hold_the_exact_values(tmp_path):
    """Compiled and run on the host: every number reads back as the float32 / integer it describes."""
    compiler = available("gcc")
    (tmp_path / "conv_kernel.h").write_text(c_header(*PER_CHANNEL))
    source = tmp_path / "values.c"
    source.write_text("""#include <stdio.h>
#include "conv_kernel.h"
int main(void) {
    const float scales[] = CONV_KERNEL_WEIGHTS_SCALES, out_scales[] = CONV_KERNEL_CONV_OUT_0_SCALES;
    const int zero_points[] = CONV_KERNEL_CONV_OUT_0_ZERO_POINTS, shape[] = CONV_KERNEL_WEIGHTS_SHAPE;
    printf("%a %d %d %d %d\\n", CONV_KERNEL_T_123_SCALE, CONV_KERNEL_T_123_ZERO_POINT, CONV_KERNEL_T_123_BYTES,
           CONV_KERNEL_WEIGHTS_MIN, CONV_KERNEL_WEIGHTS_MAX);
    for (int c = 0; c < CONV_KERNEL_WEIGHTS_CHANNELS; c++) printf("%a ", scales[c]);
    for (int c = 0; c < CONV_KERNEL_CONV_OUT_0_CHANNELS; c++) printf("%a %d ", out_scales[c], zero_points[c]);
    for (int d = 0; d < CONV_KERNEL_WEIGHTS_RANK; d++) printf("%d ", shape[d]);
    printf("%d %d\\n", CONV_KERNEL_WEIGHTS_AXIS, CONV_KERNEL_CONV_OUT_0_AXIS);
    return 0;
}
""")
    program = tmp_path / "values"
    subprocess.run([compiler, "-std=c99", "-Wall", "-Werror", str(source), "-o", str(program)], check=True, cwd=tmp_path)
    first, second = subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout.splitlines()
    scale, *integers = first.split()
    assert float.fromhex(scale) == 2.0**-7 and integers == ["-128", "18", "-8", "7"]
    numbers = second.split()
    f32 = [float.fromhex(text) for text in numbers[:4]]
    assert f32 == [float(np.float32(s)) for s in (0.01, 0.02, 0.5, 1e-9)]
    out_scales = [float.fromhex(text) for text in numbers[4:12:2]]
    assert out_scales == [float(np.float32(s)) for s in (0.1, 0.2, 0.3, 0.4)]
    assert numbers[5:12:2] == ["0", "1", "2", "255"]
    assert numbers[12:] == ["4", "2", "3", "3", "0", "1"]


def test_header_documents_quantization_and_ranges():
    header = c_header(*PER_CHANNEL)
    assert "#ifndef BITFOLD_CONV_KERNEL_H" in header and "#include <stdint.h>" in header
    assert '/* Input 1, ONNX name "weights": int8_t weights[4][2][3][3] (4-bit values' in header
    assert "quantized per channel along axis 1: real = SCALES[c] * (q - ZERO_POINTS[c])" in header
    assert "#define CONV_KERNEL_T_123_SCALE 0.0078125f /* = 0x1p-7f exactly */" in header
    assert "#define CONV_KERNEL_T_123_ZERO_POINT (-128)" in header


@pytest.mark.parametrize(("buffer", "message"), [
    (Buffer("x", (2,), "double"), "storage type 'double'"),
    (Buffer("x", (2, 3), "int8_t", Quantization([0.1, 0.2], 0, axis=1)), "need 3 values"),
    (Buffer("x", (2,), "int8_t", Quantization([0.1, 0.2])), "need an axis"),
    (Buffer("x", (2,), "uint8_t", Quantization(0.1, -1)), "zero point -1 is outside"),
    (Buffer("x", (2,), "int8_t", Quantization(0.1, 0, axis=1)), "axis 1 is outside rank 1"),
    (Buffer("x", (2,), "int8_t", value_range=(0, 300)), "does not fit int8_t"),
    (Buffer("x", (2,), "int8_t", Quantization(0.0)), "scale 0.0 is not a positive"),
    (Buffer("x", (2,), "int8_t", Quantization(1e39)), "scale 1e+39 is not a positive"),
])
def test_invalid_buffers_are_named(buffer, message):
    with pytest.raises(ValueError, match=f"^x: .*{re.escape(message)}"):
        c_header("kernel", [buffer], [], 0)


def test_header_names_the_libgcc_routines_a_soft_float_kernel_calls():
    buffers = [Buffer("x", (4,), "int8_t", Quantization(0.5, 0))]
    header = c_header("model", buffers, buffers, 0, calls=("__mulsf3", "__addsf3"))
    assert "model calls libgcc's soft-float routines __addsf3, __mulsf3: link with libgcc" in header
    assert "libgcc" not in c_header("model", buffers, buffers, 0)
