"""QLinearAdd where the float32 evaluation order decides the result: operands whose exact sum
lies within 2^-17 of a rounding tie. onnxruntime (MLAS's AVX2 kernel: fused multiply-adds) is
the oracle, run natively on a host with AVX2 and FMA3 and under `qemu-x86_64 -cpu Haswell`
elsewhere, so the kernel is the AVX2 one on any x86-64 host. Random inputs almost never land here:
an unfused model of the kernel passes the random tests and fails this one."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from conftest import require_tools
from contrib_oracle import contrib_defaults, onnx_node_oracle
from onnx import helper

from bitfold.dialects.onnx import contrib

F32 = np.float32
CASES_PER_LAYOUT = 32
LAYOUTS = {"spans": ((256,), (256,)), "b_scalar": ((256,), (1,)), "a_scalar": ((1,), (256,))}
"""A and B shapes: both full spans, B the scalar of the span, A the scalar (onnxruntime swaps)."""
DTYPES = [np.uint8, np.int8]
NAMES = ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "c_scale", "c_zero_point"]

NODE = helper.make_node("QLinearAdd", NAMES, ["c"], domain=contrib.DOMAIN)

ORT_SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from models.runners import onnxruntime_session

for stem in sys.argv[2:]:
    cases = np.load(stem + ".npz")
    session = onnxruntime_session(stem + ".onnx")
    names = [value.name for value in session.get_inputs()]
    count = len(cases["a"])
    outputs = [session.run(None, {name: np.asarray(cases[name][index]) for name in names})[0] for index in range(count)]
    np.save(stem + ".npy", np.stack(outputs))
"""
"""onnxruntime (`models.runners.onnxruntime_session`) on each `<stem>.onnx` and its cases, in a
process of its own (under qemu where the host lacks AVX2)."""


def near_tie_cases(
    rng: np.random.Generator, dtype: type, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> dict[str, np.ndarray]:
    """CASES_PER_LAYOUT parameter sets (stacked along a first axis) with at least one element
    whose exact value (a - za) sa / sc + (b - zb) sb / sc + zc is within 2^-17 of a tie."""
    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1)
    trials = 20000
    a = np.resize(codes, a_shape)
    b = rng.integers(info.min, info.max + 1, (trials, *b_shape))
    scales = rng.uniform(0.002, 0.1, (3, trials)).astype(F32)
    scales[2] = rng.uniform(0.01, 0.2, trials).astype(F32)
    zero_points = rng.integers(info.min, info.max + 1, (3, trials))
    a_ratio, b_ratio = scales[:2].astype(np.float64) / scales[2]
    offset = zero_points[2] - zero_points[0] * a_ratio - zero_points[1] * b_ratio
    exact = a * a_ratio[:, None] + b * b_ratio[:, None] + offset[:, None]
    near = (np.abs(exact - np.floor(exact) - 0.5) < 2.0**-17).any(axis=1)
    chosen = np.flatnonzero(near)[:CASES_PER_LAYOUT]
    assert len(chosen) == CASES_PER_LAYOUT, len(chosen)
    scalars = dict(zip(["a_scale", "b_scale", "c_scale"], scales[:, chosen]))
    zeros = dict(zip(["a_zero_point", "b_zero_point", "c_zero_point"], zero_points[:, chosen].astype(dtype)))
    return {
        "a": np.broadcast_to(a, (len(chosen), *a_shape)).astype(dtype),
        "b": b[chosen].astype(dtype),
        **scalars,
        **zeros,
    }


def host_runs_avx2() -> bool:
    """Whether this CPU has AVX2 and FMA3 (onnxruntime then runs MLAS's AVX2 QLinearAdd)."""
    cpuinfo = Path("/proc/cpuinfo")
    flags = (
        next((line.split() for line in cpuinfo.read_text().splitlines() if line.startswith("flags")), [])
        if cpuinfo.exists()
        else []
    )
    return {"avx2", "fma"} <= set(flags)


def onnxruntime_with_avx2(
    models: dict[str, tuple[onnx.ModelProto, dict[str, np.ndarray]]], directory: Path
) -> dict[str, np.ndarray]:
    """onnxruntime's output for every case of every model, in one subprocess: native on an
    AVX2 host, else under qemu's Haswell CPU (AVX2, FMA3)."""
    for key, (model, cases) in models.items():
        onnx.save(model, directory / f"{key}.onnx")
        np.savez(directory / f"{key}.npz", **cases)
    prefix = []
    if not host_runs_avx2():
        require_tools("qemu-x86_64")
        prefix = [shutil.which("qemu-x86_64"), "-cpu", "Haswell"]
    tests = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([*prefix, sys.executable, "-c", ORT_SCRIPT, tests, *(str(directory / key) for key in models)],
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return {key: np.load(directory / f"{key}.npy") for key in models}


def operand_lists(cases: dict[str, np.ndarray]) -> list[list[np.ndarray]]:
    """Each case's operands in QLinearAdd's order."""
    return [[np.asarray(cases[name][index]) for name in NAMES] for index in range(CASES_PER_LAYOUT)]


@pytest.fixture(scope="module")
def near_ties(tmp_path_factory) -> dict[str, tuple[dict[str, np.ndarray], np.ndarray]]:
    """For every dtype and layout: the near-tie cases and onnxruntime's outputs on them."""
    models = {}
    for dtype in DTYPES:
        for layout, shapes in LAYOUTS.items():
            cases = near_tie_cases(np.random.default_rng(31), dtype, *shapes)
            model = onnx_node_oracle.node_model(NODE, operand_lists(cases)[0], onnx_node_oracle.OPSET)
            models[f"{np.dtype(dtype).name}_{layout}"] = (model, cases)
    outputs = onnxruntime_with_avx2(models, tmp_path_factory.mktemp("qlinear_add"))
    return {key: (cases, outputs[key]) for key, (_, cases) in models.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_qlinear_add_near_ties_equal_onnxruntime(dtype, layout, near_ties):
    cases, expected = near_ties[f"{np.dtype(dtype).name}_{layout}"]
    for index, (inputs, want) in enumerate(zip(operand_lists(cases), expected)):
        op = onnx_node_oracle.build_op(NODE, inputs, [want], contrib_defaults)
        np.testing.assert_array_equal(op.evaluate(inputs)[0], want, err_msg=f"case {index}")
