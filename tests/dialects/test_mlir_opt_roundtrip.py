"""bitfold's printed quant IR is accepted by upstream mlir-opt-22, and what mlir-opt-22 prints
back parses in bitfold to the same types (the acceptance's interchange, both directions)."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type
from xdsl.parser import Parser

import bitfold
from bitfold.dialects.quant import UniformQuantizedType, integer_range

EXPRESSED = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "f64": Float64Type()}


@st.composite
def uniform_types(draw) -> UniformQuantizedType:
    bits = draw(st.integers(1, 32))
    signed = draw(st.booleans())
    low, high = integer_range(bits, signed)
    storage_min = draw(st.integers(low, high - 1))
    storage_max = draw(st.integers(storage_min + 1, high))
    expressed = draw(st.sampled_from(sorted(EXPRESSED)))
    scale = st.floats(1e-6, 1e4, allow_nan=False, allow_infinity=False)
    zero_point = st.integers(storage_min, storage_max)
    kind = draw(st.sampled_from(["tensor", "axis", "block"]))
    storage_range = (storage_min, storage_max)
    if kind == "tensor":
        return UniformQuantizedType.get(
            bits, signed, EXPRESSED[expressed], draw(scale), draw(zero_point), storage_range=storage_range
        )
    if kind == "axis":
        count = draw(st.integers(1, 4))
        return UniformQuantizedType.get(
            bits, signed, EXPRESSED[expressed], draw(st.lists(scale, min_size=count, max_size=count)),
            draw(st.lists(zero_point, min_size=count, max_size=count)), axis=draw(st.integers(0, 3)),
            storage_range=storage_range,
        )
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    scales = [draw(st.lists(scale, min_size=cols, max_size=cols)) for _ in range(rows)]
    zero_points = [draw(st.lists(zero_point, min_size=cols, max_size=cols)) for _ in range(rows)]
    return UniformQuantizedType.get(
        bits, signed, EXPRESSED[expressed], scales, zero_points,
        block_sizes={0: draw(st.integers(1, 4)), 1: draw(st.integers(1, 64))}, storage_range=storage_range,
    )


def _module_text(types: list[UniformQuantizedType]) -> str:
    return "".join(f'"test.op"() {{t = {t}}} : () -> ()\n' for t in types)


def _parse_types(text: str) -> list:
    ctx = Context(allow_unregistered=True)
    bitfold.register_into(ctx)
    module = Parser(ctx, text).parse_module()
    return [op.attributes["t"] for op in module.ops]


def _upstream_misprints_zero_points(qtype: UniformQuantizedType) -> bool:
    """Upstream holds sub-channel zero points as storage-width APInts and prints them signed:
    an unsigned zero point >= 2^(N-1) comes out negative, and an i1 zero point -1 vanishes."""
    if qtype.kind != "sub_channel" or not any(qtype.zero_point_values()):
        return False
    return not qtype.is_signed or qtype.storage_width == 1


def _comparable(text: str) -> list[str]:
    """The printed types, one per test.op."""
    return re.findall(r"\{t = (.*)\} : \(\) -> \(\)", text)


@settings(max_examples=60, deadline=None)
@given(st.lists(uniform_types(), min_size=1, max_size=10))
def test_bitfold_text_survives_mlir_opt(mlir_opt, types):
    text = _module_text(types)
    ours = _comparable(text)
    upstream = _comparable(mlir_opt(text))
    for mine, theirs, qtype in zip(ours, upstream, types, strict=True):
        if _upstream_misprints_zero_points(qtype):
            continue
        assert mine == theirs
    assert _parse_types(text) == types


def test_acceptance_forms_round_trip_through_mlir_opt(mlir_opt, bitfold_opt):
    text = """func.func @f(
    %arg0: tensor<4x!quant.uniform<i8<-8:7>:f32, 0.5:-1>>,
    %arg1: tensor<3x2x!quant.uniform<u8:f32:1, {0.1:128, 0.2:120}>>,
    %arg2: tensor<2x4x!quant.uniform<i4:f32:{0:1, 1:2}, {{0.5:1, 0.25:2}, {0.125, 0.0625:-1}}>>) {
  func.return
}
"""
    printed = bitfold_opt(text)
    assert printed.returncode == 0, printed.stderr
    upstream = mlir_opt(printed.stdout)
    back = bitfold_opt(upstream)
    assert back.returncode == 0, back.stderr
    assert back.stdout == printed.stdout
    for form in ("i8<-8:7>:f32, 5.000000e-01:-1", "u8:f32:1, {1.000000e-01:128,2.000000e-01:120}",
                 "i4:f32:{0:1, 1:2}, {{5.000000e-01:1, 2.500000e-01:2}, {1.250000e-01, 6.250000e-02:-1}}"):
        assert f"!quant.uniform<{form}>" in upstream
