"""Form-to-form conversions for the round-trip test and the converter bench: one cell is a
source model converted to one target form (import, `onnx-to-quant`, `canonicalize`,
export), run under the target form's oracle and compared with the source model under its
own oracle.

Sources: the catalogue's QDQ, QCDQ, QONNX and QOp models, and the non-FloatQuant models
shipped in the qonnx package (named `qonnx:<relpath>`). A cell's verdict is one of
- `same`: every output bit for bit, on every seed;
- `rounding`: outputs produced by a quantizer bit for bit; float outputs computed after the
  last quantizer differ only by float rounding (onnxruntime's and qonnx's executors order
  the float sums differently);
- `1 step`: some elements differ by at most one quantization step of the output (the step
  read from the model), in under `MAX_STEP_FRACTION` of the elements;
- `changed`: anything else (never expected);
- `refused: <message>`: the exporter's one-line `ExportError` (the form cannot hold it),
  per-channel scale lists `{...}` shortened to `{..}`.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from models.qonnx_models import SHIPPED_QONNX_MODELS
from models.recipes import ModelCatalogue, form_of, names
from models.runners import run_onnxruntime, run_qonnx
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

TARGETS = ("qdq", "qcdq", "qonnx", "qop")
SOURCE_FORMS = ("qdq", "qcdq", "qonnx", "qop")
SEEDS = (0, 1)

MAX_STEP_FRACTION = 1e-3
"""At most this fraction of an output's elements may differ (by at most one step) in a
`1 step` cell."""

FLOAT_RTOL = 1e-5
"""Float outputs computed after the last quantizer agree to this relative tolerance (float32
summation order)."""

SHIPPED = [m for m in SHIPPED_QONNX_MODELS if "FloatQuant" not in m.ops]


def source_names() -> list[str]:
    """Every source model of the round trips, catalogue first."""
    return [n for form in SOURCE_FORMS for n in names(form)] + [f"qonnx:{m.relpath}" for m in SHIPPED]


def oracle(form: str) -> Callable[..., dict[str, np.ndarray]]:
    return run_qonnx if form == "qonnx" else run_onnxruntime


def source_form(name: str) -> str:
    return "qonnx" if name.startswith("qonnx:") else form_of(name)


def form_class(target: str):
    from bitfold.backends.onnx.qcdq import QcdqForm
    from bitfold.backends.onnx.qdq import QdqForm
    from bitfold.backends.onnx.qonnx import QonnxForm
    from bitfold.backends.onnx.qop import QopForm

    return {"qdq": QdqForm, "qcdq": QcdqForm, "qonnx": QonnxForm, "qop": QopForm}[target]


def canonical_module(path: os.PathLike | str) -> ModuleOp:
    """import -> onnx-to-quant -> canonicalize."""
    from xdsl.transforms.canonicalize import CanonicalizePass

    from bitfold.frontends.onnx import import_model
    from bitfold.load import full_context
    from bitfold.passes.onnx_to_quant import OnnxToQuantPass

    module = import_model(path)
    ctx = full_context()
    OnnxToQuantPass().apply(ctx, module)
    CanonicalizePass().apply(ctx, module)
    return module


# -- what each output is: produced by a quantizer, or float after the last one ------------


@dataclass(frozen=True)
class OutputKind:
    """`quantized`: the output is a dcast (through data movement), `step` its scales
    (broadcast to the output's shape); else a float computed from dcasts whose largest
    scale is `step` (None: no quantizer upstream)."""

    quantized: bool
    step: np.ndarray | float | None


_DATA_MOVEMENT = ("onnx.Reshape", "onnx.Flatten", "onnx.Identity", "onnx.Squeeze", "onnx.Unsqueeze", "onnx.MaxPool")


def _dcasts_upstream(value: SSAValue) -> Iterator[Operation]:
    """The dcasts nearest upstream of `value` (breadth first, each op once)."""
    from bitfold.dialects.quant import DequantizeCastOp

    seen: set[int] = set()
    frontier = [value]
    while frontier:
        next_frontier = []
        for v in frontier:
            owner = v.owner
            if not isinstance(owner, Operation) or id(owner) in seen:
                continue
            seen.add(id(owner))
            if isinstance(owner, DequantizeCastOp):
                yield owner
            else:
                next_frontier += list(owner.operands)
        frontier = next_frontier


def output_kinds(module: ModuleOp) -> list[OutputKind]:
    """One `OutputKind` per function result, read from the canonical IR."""
    from bitfold.dialects.quant import DequantizeCastOp, UniformQuantizedType, element_type

    function = next(op for op in module.ops if isinstance(op, func.FuncOp))
    kinds = []
    for value in function.body.blocks[0].last_op.operands:
        owner = value.owner
        while isinstance(owner, Operation) and owner.name in _DATA_MOVEMENT:
            owner = owner.operands[0].owner
        if isinstance(owner, DequantizeCastOp):
            qtype = element_type(owner.input.type)
            shape = tuple(owner.result.type.get_shape())
            if isinstance(qtype, UniformQuantizedType) and tuple(value.type.get_shape()) == shape:
                step = qtype.parameter_arrays(shape)[0].astype(np.float64)
            else:
                step = float(max(qtype.scale_values()))
            kinds.append(OutputKind(True, step))
            continue
        scales = [max(element_type(d.input.type).scale_values()) for d in _dcasts_upstream(value)]
        kinds.append(OutputKind(False, max(scales) if scales else None))
    return kinds


# -- comparing ----------------------------------------------------------------------------


@dataclass
class OutputDifference:
    """How one output of one seed differs: elements differing at all, beyond float rounding,
    and the largest difference in steps."""

    name: str
    size: int
    differing: int
    beyond_rounding: int
    max_steps: float


@dataclass
class CellResult:
    verdict: str
    differences: list[OutputDifference] = field(default_factory=list)

    def report(self) -> str:
        parts = [f"{d.name}: {d.differing} of {d.size} differ ({d.beyond_rounding} beyond float rounding, "
                 f"max {d.max_steps:.3g} steps)" for d in self.differences if d.differing]
        return "; ".join(parts) or "all equal"


def compare(kinds: list[OutputKind], expected: dict[str, np.ndarray], actual: dict[str, np.ndarray]) -> list[OutputDifference]:
    if list(actual) != list(expected) or len(kinds) != len(expected):
        raise AssertionError(f"outputs {list(actual)} differ from the source's {list(expected)}")
    differences = []
    for (name, want), kind in zip(expected.items(), kinds, strict=True):
        got = actual[name]
        if got.dtype != want.dtype or got.shape != want.shape:
            raise AssertionError(f"output {name}: {got.dtype}{got.shape} against the source's {want.dtype}{want.shape}")
        wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
        differing = ~((wide_got == wide_want) | (np.isnan(wide_got) & np.isnan(wide_want)))
        if kind.quantized:
            beyond = differing
        else:
            beyond = ~np.isclose(wide_got, wide_want, rtol=FLOAT_RTOL, atol=0.0)
        step = kind.step if kind.step is not None else np.inf
        steps = np.abs(wide_got - wide_want) / np.broadcast_to(step, wide_got.shape)
        max_steps = float(steps[differing].max()) if differing.any() else 0.0
        differences.append(OutputDifference(name, got.size, int(differing.sum()), int(beyond.sum()), max_steps))
    return differences


def verdict_of(kinds: list[OutputKind], differences: list[OutputDifference]) -> str:
    if not any(d.differing for d in differences):
        return "same"
    if not any(d.beyond_rounding for d in differences):
        return "rounding"
    # One step, with a little slack for the float rounding of the dequantized values.
    if all(d.max_steps <= 1 + 1e-4 and d.beyond_rounding < MAX_STEP_FRACTION * d.size for d in differences):
        return "1 step"
    return "changed"


# -- the cells, with caches ----------------------------------------------------------------


def _cached(method):
    """Memoize a method per instance and arguments."""

    @functools.wraps(method)
    def wrapper(self, *args):
        cache = self.__dict__.setdefault("_cache", {})
        key = (method.__name__, *args)
        if key not in cache:
            cache[key] = method(self, *args)
        return cache[key]

    return wrapper


class RoundTrips:
    """Sources, canonical modules, converted models and oracle outputs, each computed once."""

    def __init__(self, catalogue: ModelCatalogue | None = None):
        self.catalogue = catalogue or ModelCatalogue(tempfile.mkdtemp(prefix="bitfold-round-trips-"))
        self._shipped_dir = Path(tempfile.mkdtemp(prefix="bitfold-shipped-"))

    @_cached
    def path(self, name: str) -> Path:
        if not name.startswith("qonnx:"):
            return self.catalogue.path(name)
        shipped = next(m for m in SHIPPED if m.relpath == name.removeprefix("qonnx:"))
        model = onnx.load(shipped.path) if shipped.runs else shipped.cleaned_model()
        path = self._shipped_dir / (shipped.relpath.replace("/", "_"))
        onnx.save(model, path)
        return path

    @_cached
    def inputs(self, name: str, seed: int) -> dict[str, np.ndarray]:
        if not name.startswith("qonnx:"):
            return self.catalogue.inputs(name, seed)
        shipped = next(m for m in SHIPPED if m.relpath == name.removeprefix("qonnx:"))
        return shipped.feeds(seed) if shipped.runs else shipped.cleaned_feeds(onnx.load(self.path(name)), seed)

    @_cached
    def expected(self, name: str, seed: int) -> dict[str, np.ndarray]:
        return oracle(source_form(name))(self.path(name), self.inputs(name, seed))

    @_cached
    def module(self, name: str) -> ModuleOp:
        return canonical_module(self.path(name))

    @_cached
    def kinds(self, name: str) -> list[OutputKind]:
        return output_kinds(self.module(name))

    @_cached
    def converted(self, name: str, target: str) -> onnx.ModelProto | str:
        """The exported model, or `refused: <first line of the ExportError>`."""
        from bitfold.backends.onnx import ExportError, export_model

        try:
            return export_model(self.module(name), form_class(target)())
        except ExportError as error:
            return "refused: " + re.sub(r"\{[^{}]*\}", "{..}", str(error).splitlines()[0])

    def cell(self, name: str, target: str) -> CellResult:
        converted = self.converted(name, target)
        if isinstance(converted, str):
            return CellResult(converted)
        kinds = self.kinds(name)
        differences = []
        for seed in SEEDS:
            actual = oracle(target)(converted, self.inputs(name, seed))
            differences += compare(kinds, self.expected(name, seed), actual)
        merged = _merge(differences)
        return CellResult(verdict_of(kinds, merged), merged)


def _merge(differences: list[OutputDifference]) -> list[OutputDifference]:
    """One difference per output name over all seeds."""
    merged: dict[str, OutputDifference] = {}
    for d in differences:
        if d.name not in merged:
            merged[d.name] = OutputDifference(d.name, 0, 0, 0, 0.0)
        m = merged[d.name]
        m.size += d.size
        m.differing += d.differing
        m.beyond_rounding += d.beyond_rounding
        m.max_steps = max(m.max_steps, d.max_steps)
    return list(merged.values())
