"""`arith.maxsi`/`minsi`/`maxui`/`minui` on RISC-V (`lower_integers.py`: Zbb's `max`/`min`/`maxu`/
`minu`, else a branch over a move, `branch_bounds.py`) under qemu against numpy on every pair of edge values of
the type (its extremes, 0, +-1) and random ones, by a value and by a constant."""

import numpy as np
import pytest
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (the fixture)

from bitfold.backends.riscv import compile_to_assembly

OPS = ("maxsi", "minsi", "maxui", "minui")
BOUND = -100
"""The constant of `op(a, BOUND)`: below 0 signed, above every non-negative value unsigned."""


def min_max_ir(n: int, element: str, by_constant: bool) -> str:
    """out_k[i] = OPS[k](a[i], b[i]), or OPS[k](a[i], BOUND) `by_constant`, in one generic."""
    tensor = f"tensor<{n}x{element}>"
    other = "%bound" if by_constant else "%b"
    ops = "\n".join(f"    %v{k} = arith.{op} %a, {other} : {element}" for k, op in enumerate(OPS))
    types = ", ".join([tensor] * 4)
    return f"""
func.func @kernel(%x: {tensor}, %y: {tensor}) -> ({types}) {{
  %e = tensor.empty() : {tensor}
  %r:4 = linalg.generic {{indexing_maps = [{", ".join(["affine_map<(d0) -> (d0)>"] * 6)}],
                          iterator_types = ["parallel"]}} ins(%x, %y : {tensor}, {tensor})
      outs(%e, %e, %e, %e : {types}) {{
  ^bb0(%a: {element}, %b: {element}, %o0: {element}, %o1: {element}, %o2: {element}, %o3: {element}):
    %bound = arith.constant {BOUND} : {element}
{ops}
    linalg.yield %v0, %v1, %v2, %v3 : {", ".join([element] * 4)}
  }} -> {types}
  func.return %r#0, %r#1, %r#2, %r#3 : {types}
}}
"""


def edge_pairs(dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the type's extremes, 0, +-1 and BOUND's neighbours, then random pairs."""
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max, BOUND - 1, BOUND, BOUND + 1])
    a, b = np.meshgrid(edges, edges)
    rest = np.random.default_rng(7).integers(info.min, info.max, size=(2, 28), endpoint=True)
    return np.concatenate([a.ravel(), rest[0]]).astype(dtype), np.concatenate([b.ravel(), rest[1]]).astype(dtype)


def reference(a: np.ndarray, other: np.ndarray) -> list[np.ndarray]:
    """maxsi, minsi, maxui, minui of numpy's signed and unsigned views."""
    unsigned = np.dtype(a.dtype.str.replace("i", "u"))
    ua, uo = a.view(unsigned), other.view(unsigned)
    return [np.maximum(a, other), np.minimum(a, other), np.maximum(ua, uo).view(a.dtype), np.minimum(ua, uo).view(a.dtype)]


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im", "rv32im_zbb", "rv64im_zbb"])
@pytest.mark.parametrize(("element", "dtype"), [("i32", np.int32), ("i8", np.int8)])
@pytest.mark.parametrize("by_constant", [False, True])
def test_min_max_at_the_extremes(target, element, dtype, by_constant, tmp_path):
    a, b = edge_pairs(dtype)
    outputs = run_kernel(min_max_ir(a.size, element, by_constant), [a, b], target, tmp_path)
    other = np.full_like(a, BOUND) if by_constant else b
    for got, want, op in zip(outputs, reference(a, other), OPS, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=op)


def test_one_instruction_each_with_zbb():
    """With Zbb, each min/max is its one instruction (no `slt`/`sltu` select)."""
    assembly = compile_to_assembly(parse(min_max_ir(8, "i32", False)), "rv32im_zbb", "kernel")
    counts = {mnemonic: assembly.count(f"    {mnemonic} ") for mnemonic in ("max", "min", "maxu", "minu")}
    assert len(set(counts.values())) == 1 and counts["max"] >= 1, counts
    assert "slt" not in assembly
