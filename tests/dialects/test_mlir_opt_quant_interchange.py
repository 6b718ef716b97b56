"""Upstream quant IR beyond the uniform types, with mlir-opt-22 as the oracle: `!quant.any`,
`!quant.calibrated` (calibration statistics), casts on tensors with dynamic dimensions and on unranked
tensors. Whatever mlir-opt-22 prints, bitfold parses and prints identically; whatever it rejects, bitfold
rejects with its words."""

import random
import re
import subprocess

import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type

from bitfold.dialects.quant import AnyQuantizedType, CalibratedQuantizedType, integer_range

EXPRESSED = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "f64": Float64Type()}


def _types_in(text: str) -> list[str]:
    """Every `!quant.<kind><...>` spelling in `text`, in order (angle brackets balanced)."""
    found = []
    for match in re.finditer(r"!quant\.\w+<", text):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(text)):
            depth += {"<": 1, ">": -1}.get(text[end], 0)
            if depth == 0:
                break
        found.append(text[match.start() : end + 1])
    return found


def _casts(text: str) -> list[str]:
    """The quant ops in `text`, in order, with the types they cast between."""
    return [" ".join(line.split(" = ", 1)[1].split()[:1] + line.split(" : ", 1)[1:])
            for line in text.splitlines() if " = quant." in line]


def _type_module(spellings: list[str]) -> str:
    return "".join(f"func.func private @f{i}() -> tensor<2x{t}>\n" for i, t in enumerate(spellings))


def any_type(draw: random.Random) -> str:
    bits = draw.randint(1, 32)
    signed = draw.random() < 0.5
    low, high = integer_range(bits, signed)
    storage = f"{'i' if signed else 'u'}{bits}"
    if draw.random() < 0.5:
        storage_min = draw.randint(low, high - 1)
        storage += f"<{storage_min}:{draw.randint(storage_min + 1, high)}>"
    expressed = draw.choice([None, *EXPRESSED])
    return f"!quant.any<{storage}{'' if expressed is None else ':' + expressed}>"


def calibrated_type(draw: random.Random) -> str:
    """Bounds of every kind upstream prints differently: short decimals, long ones, ones that need
    hex (no short decimal spells the double), tiny and huge magnitudes."""
    def bound() -> float:
        return draw.choice([round(draw.uniform(-4, 4), draw.randint(0, 7)), draw.uniform(-1e6, 1e6),
                            draw.uniform(-1, 1) * 10.0 ** draw.randint(-300, 300), float(draw.randint(-9, 9)),
                            float(draw.randint(-10**9, 10**9))])
    low, high = sorted((bound(), bound()))
    high = high if high > low else low + 1.0
    return f"!quant.calibrated<{draw.choice(sorted(EXPRESSED))}<{low!r}:{high!r}>>"


def test_any_and_calibrated_print_as_mlir_opt_prints_them(mlir_opt, bitfold_opt):
    """400 seeded random types: both tools read the text; bitfold prints what mlir-opt-22 prints, and reads
    that back unchanged."""
    draw = random.Random(14)
    spellings = [(any_type if draw.random() < 0.4 else calibrated_type)(draw) for _ in range(400)]
    text = _type_module(spellings)
    upstream = mlir_opt(text)
    ours = bitfold_opt(text)
    assert ours.returncode == 0, ours.stderr
    assert _types_in(ours.stdout) == _types_in(upstream)
    assert any("<0x" in spelling for spelling in _types_in(upstream))  # hex doubles were among them
    again = bitfold_opt(upstream)
    assert again.returncode == 0, again.stderr
    assert _types_in(again.stdout) == _types_in(upstream)


CASTS = """
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %q = quant.qcast %x : tensor<?x4xf32> to tensor<?x4x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3, 0.4:3}>>
  %i = quant.scast %q : tensor<?x4x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3, 0.4:3}>> to tensor<?x4xi8>
  %b = quant.scast %i : tensor<?x4xi8> to tensor<?x4x!quant.uniform<i8:f32:{1:2}, {{0.1, 0.2}}>>
  %y = quant.dcast %b : tensor<?x4x!quant.uniform<i8:f32:{1:2}, {{0.1, 0.2}}>> to tensor<?x4xf32>
  func.return %y : tensor<?x4xf32>
}
func.func @dynamic_axis(%x: tensor<2x?xf32>) -> tensor<2x?x!quant.uniform<u8:f32:1, {0.5:128, 0.25}>> {
  %q = quant.qcast %x : tensor<2x?xf32> to tensor<2x?x!quant.uniform<u8:f32:1, {0.5:128, 0.25}>>
  func.return %q : tensor<2x?x!quant.uniform<u8:f32:1, {0.5:128, 0.25}>>
}
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  %q = quant.qcast %x : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32, 0.5:-1>>
  %a = quant.scast %q : tensor<*x!quant.uniform<i8:f32, 0.5:-1>> to tensor<*xi8>
  %p = quant.scast %a : tensor<*xi8> to tensor<*x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  %y = quant.dcast %p : tensor<*x!quant.uniform<i8:f32:1, {0.5, 0.25}>> to tensor<*xf32>
  func.return %y : tensor<*xf32>
}
func.func @open(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xi8>) {
  %a = quant.qcast %x : tensor<2xf32> to tensor<2x!quant.any<i8:f32>>
  %c = quant.qcast %x : tensor<2xf32> to tensor<2x!quant.calibrated<f32<-1.0:1.0>>>
  %y = quant.dcast %c : tensor<2x!quant.calibrated<f32<-1.0:1.0>>> to tensor<2xf32>
  %i = quant.scast %a : tensor<2x!quant.any<i8:f32>> to tensor<2xi8>
  func.return %y, %i : tensor<2xf32>, tensor<2xi8>
}
"""


def test_casts_on_dynamic_and_unranked_tensors_as_mlir_opt(mlir_opt, bitfold_opt):
    """Each tool reads the module and the other's output; the casts and their types are the same."""
    upstream = mlir_opt(CASTS)
    ours = bitfold_opt(CASTS)
    assert ours.returncode == 0, ours.stderr
    again = bitfold_opt(upstream)
    assert again.returncode == 0, again.stderr
    assert _types_in(mlir_opt(ours.stdout)) == _types_in(ours.stdout) == _types_in(again.stdout) == _types_in(upstream)
    assert _casts(ours.stdout) == _casts(again.stdout) == _casts(upstream)
    assert [cast.split()[0] for cast in _casts(upstream)] == [cast.split()[0] for cast in _casts(CASTS)]


REJECTED = {
    "sub-channel on unranked": ("func.func @f(%x: tensor<*xf32>) { %q = quant.qcast %x : tensor<*xf32> to "
                                "tensor<*x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}}>>\n func.return }",
                                "tensor containing the sub-channel quantized type must be ranked"),
    "ranked from unranked": ("func.func @f(%x: tensor<*xf32>) { %q = quant.qcast %x : tensor<*xf32> to "
                             "tensor<4x!quant.uniform<i8:f32, 0.5>>\n func.return }",
                             "input and result are both scalars or both tensors with matching shape"),
    "static from dynamic": ("func.func @f(%x: tensor<?xf32>) { %q = quant.qcast %x : tensor<?xf32> to "
                            "tensor<4x!quant.uniform<i8:f32, 0.5>>\n func.return }",
                            "input and result are both scalars or both tensors with matching shape"),
    "per-axis size": ("func.func @f(%x: tensor<?x3xf32>) { %q = quant.qcast %x : tensor<?x3xf32> to "
                      "tensor<?x3x!quant.uniform<i8:f32:1, {0.5, 0.25}>>\n func.return }",
                      "quantized dimension size does not match number of scales"),
    "any without expressed type": ("func.func @f(%x: tensor<2xf32>) { %q = quant.qcast %x : tensor<2xf32> to "
                                   "tensor<2x!quant.any<i8>>\n func.return }",
                                   "expressed type in quantized type expected to match float type"),
    "calibrated storage": ("func.func @f(%x: tensor<2x!quant.calibrated<f32<-1.0:1.0>>>) { %q = quant.scast %x : "
                           "tensor<2x!quant.calibrated<f32<-1.0:1.0>>> to tensor<2xi8>\n func.return }",
                           "storage type in quantized type expected to match integer type"),
    "calibrated empty range": ("func.func private @f() -> !quant.calibrated<f32<1.0:1.0>>",
                               "illegal min and max: (1.000000e+00:1.000000e+00)"),
    "calibrated -0 and 0": ("func.func private @f() -> !quant.calibrated<f32<-0.0:0.0>>",
                            "illegal min and max: (-0.000000e+00:0.000000e+00)"),
    "calibrated integer": ("func.func private @f() -> !quant.calibrated<i32<-1.0:1.0>>",
                           "expecting float expressed type"),
    "any storage size": ("func.func private @f() -> !quant.any<i33:f32>", "illegal storage type size: 33"),
    "any storage minimum": ("func.func private @f() -> !quant.any<i8<-200:7>:f32>",
                            "illegal storage type minimum: -200"),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_rejected_as_mlir_opt_rejects(mlir_opt, bitfold_opt, case):
    text, message = REJECTED[case]
    upstream = subprocess.run(["mlir-opt-22"], input=text, capture_output=True, text=True)
    assert upstream.returncode != 0 and message in upstream.stderr  # the oracle's words
    ours = bitfold_opt(text)
    assert ours.returncode == 1 and message in ours.stderr and len(ours.stderr.strip().splitlines()) == 1


def test_calibrated_python_api_prints_as_mlir_opt(mlir_opt):
    statistics = CalibratedQuantizedType.get(-0.75, 2.5)
    assert (statistics.min, statistics.max, statistics.expressed_type) == (-0.75, 2.5, Float32Type())
    half = CalibratedQuantizedType.get(-1, 1e-3, Float16Type())
    text = _type_module([str(statistics), str(half)])
    assert _types_in(mlir_opt(text)) == [str(statistics), str(half)]
    narrow = AnyQuantizedType.get(8, True, Float32Type(), storage_range=(-8, 7))
    assert _types_in(mlir_opt(_type_module([str(narrow)]))) == [str(narrow)] == ["!quant.any<i8<-8:7>:f32>"]
    assert narrow.storage_integer_type().width.data == 8 and narrow.value_range() == (-8, 7)


@pytest.mark.parametrize("kind", ["!quant.any<i8:f32>", "!quant.calibrated<f32<-1.0:1.0>>"])
def test_executing_a_cast_to_a_type_without_scale_is_one_line(tmp_path, kind):
    source = tmp_path / "f.mlir"
    source.write_text(f"func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {{\n"
                      f"  %q = quant.qcast %x : tensor<2xf32> to tensor<2x{kind}>\n"
                      f"  %y = quant.dcast %q : tensor<2x{kind}> to tensor<2xf32>\n"
                      f"  func.return %y : tensor<2xf32>\n}}\n")
    values = tmp_path / "x.npy"
    np.save(values, np.zeros(2, np.float32))
    done = subprocess.run(["bitfold-run", str(source), "--input", f"x={values}"], capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: 'quant.qcast' op {kind.replace('-1.0', '-1.000000e+00').replace(':1.0', ':1.000000e+00')} has no scale and zero point:"
        " no value can be computed with it"
    ]


@pytest.mark.parametrize("storage", ["f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ", "f4E2M1FN"])
def test_mlir_opt_22_reads_no_float_storage_type(mlir_opt, storage):
    """Canary: upstream's `!quant.uniform<f8E4M3FN:f32, 0.5>` (float storage through the quant storage type
    interface) is newer than LLVM 22: mlir-opt-22 refuses every float storage type, with a width it reads
    from a non-integer type ("illegal storage type size: <garbage>"). bitfold has no quant form for float
    storage until the two can be checked against each other; when this fails, mlir-opt reads them."""
    text = f"func.func private @f() -> tensor<2x!quant.uniform<{storage}:f32, 0.5>>\n"
    with pytest.raises(AssertionError, match="illegal storage type size"):
        mlir_opt(text)
