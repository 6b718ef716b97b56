"""The catalogue of test models bitfold's frontend, passes and backends are measured on.

Every model is built locally from code (fixed seeds, nothing downloaded, nothing committed as a
binary) into a directory, once, on first request. Names are `<network>-<form>[-<config>]`:

- float:  `mlp-float`, `cnn_depthwise-float`, `residual-float`, `pooling-float` (see float_models.py)
- qdq:    `<network>-qdq-<act><wt>[-perchannel]`, act/wt type codes u8, s8, u4, s4, u16
          (onnxruntime quantize_static, QuantFormat.QDQ); `-msdomain`: Q/DQ in the com.microsoft
          domain (4-bit below opset 21)
- qop:    `<network>-qop-<act><wt>[-perchannel]` (QuantFormat.QOperator: QLinear* / QGemm ops)
- qcdq:   `<qdq name>-qcdq4` (activations and weights narrowed to 4 bits by Clip),
          `<qdq name>-qcdq4a` (activations only)
- qonnx:  `<network>-qonnx-<variant>` (qonnx Quant / BipolarQuant / Trunc nodes)

Oracles: onnxruntime (`run_onnxruntime`) for float, qdq, qop and qcdq; qonnx's executor
(`run_qonnx`) for qonnx. Use the pytest fixtures in fixtures.py rather than this module directly in
tests; import `names()` here to parametrize at collection time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

from . import qonnx_models
from .float_models import FLOAT_BUILDERS, IR_VERSION
from .quantized import QuantConfig, quantize, to_qcdq
from .runners import random_inputs, run_onnxruntime, run_qonnx

FORMS = ("float", "qdq", "qop", "qcdq", "qonnx")
"""The model forms, in the order bitfold's frontend documents them (plus float)."""

NETWORKS = tuple(FLOAT_BUILDERS)
"""The float networks every quantized model derives from: mlp, cnn_depthwise, residual, pooling."""


@dataclass(frozen=True)
class Recipe:
    """How to build one catalogue model.

    `build(catalogue, path)` returns the ModelProto (it may write `path` itself and may ask the
    catalogue for the models it derives from); the catalogue then saves it to `path`.
    """

    name: str
    form: str
    doc: str
    build: Callable[[ModelCatalogue, Path], onnx.ModelProto]

    @property
    def oracle(self) -> Callable[..., dict[str, np.ndarray]]:
        """The reference runner for this model's form."""
        return run_qonnx if self.form == "qonnx" else run_onnxruntime


def _float_recipe(network: str) -> Recipe:
    builder = FLOAT_BUILDERS[network]
    return Recipe(f"{network}-float", "float", builder.__doc__.strip().splitlines()[0], lambda cat, path: builder())


def _quant_name(network: str, config: QuantConfig, suffix: str = "") -> str:
    pc = "-perchannel" if config.per_channel else ""
    return f"{network}-{config.fmt}-{config.activations}{config.weights}{pc}{suffix}"


def _quant_recipe(network: str, config: QuantConfig, suffix: str = "") -> Recipe:
    def build(catalogue, path):
        return quantize(FLOAT_BUILDERS[network](opset=config.opset), config, path)

    doc = (
        f"{network} quantized by onnxruntime quantize_static ({config.fmt}, activations {config.activations}, "
        f"weights {config.weights}, {'per channel' if config.per_channel else 'per tensor'}, opset {config.opset})"
    )
    return Recipe(_quant_name(network, config, suffix), config.fmt, doc, build)


def _qcdq_recipe(base: str, weights: bool) -> Recipe:
    def build(catalogue, path):
        return to_qcdq(catalogue.load(base), bits=4, weights=weights)

    what = "activations and weights" if weights else "activations"
    suffix = "-qcdq4" if weights else "-qcdq4a"
    return Recipe(base + suffix, "qcdq", f"{base} with {what} narrowed to 4 bits by Clip (QCDQ)", build)


def _qonnx_recipe(name: str, builder: Callable[[], onnx.ModelProto], doc: str | None = None) -> Recipe:
    doc = doc or builder.__doc__.strip().splitlines()[0]
    return Recipe(name, "qonnx", doc, lambda cat, path: builder())


_TRUNC_DOC = qonnx_models.pooling_trunc.__doc__.strip().splitlines()[0]


def _recipes() -> list[Recipe]:
    recipes = [_float_recipe(n) for n in NETWORKS]
    eight_bit = [("u8", "u8"), ("u8", "s8"), ("s8", "s8")]
    for fmt in ("qdq", "qop"):
        for network in NETWORKS:
            for act, wt in eight_bit:
                for per_channel in (False, True):
                    recipes.append(_quant_recipe(network, QuantConfig(fmt, act, wt, per_channel)))
    for network in NETWORKS:  # 4-bit weights, native ONNX int4 / uint4 Q/DQ (opset 21)
        recipes.append(_quant_recipe(network, QuantConfig("qdq", "u8", "s4", True, opset=21)))
        recipes.append(_quant_recipe(network, QuantConfig("qdq", "u8", "u4", False, opset=21)))
    recipes += [
        _quant_recipe("mlp", QuantConfig("qdq", "s4", "s4", True, opset=21)),  # 4-bit activations too
        _quant_recipe("mlp", QuantConfig("qdq", "u16", "s8", False)),  # 16-bit activations (opset 21)
        _quant_recipe("mlp", QuantConfig("qdq", "u8", "s4", True, opset=13), "-msdomain"),  # com.microsoft Q/DQ
    ]
    for network in NETWORKS:
        recipes.append(_qcdq_recipe(f"{network}-qdq-u8s8-perchannel", weights=True))
        recipes.append(_qcdq_recipe(f"{network}-qdq-s8s8", weights=True))
    recipes += [_qcdq_recipe("mlp-qdq-u8u8", weights=False), _qcdq_recipe("residual-qdq-u8u8", weights=False)]
    recipes += [
        _qonnx_recipe("mlp-qonnx-w4a6", qonnx_models.mlp_w4a6),
        _qonnx_recipe("cnn_depthwise-qonnx-w4a6", qonnx_models.cnn_depthwise_w4a6),
        _qonnx_recipe("residual-qonnx-w4a6", qonnx_models.residual_w4a6),
        _qonnx_recipe("mlp-qonnx-bipolar", qonnx_models.mlp_bipolar),
        _qonnx_recipe("pooling-qonnx-trunc", lambda: qonnx_models.pooling_trunc(2), _TRUNC_DOC + " (Trunc v2)"),
        _qonnx_recipe("pooling-qonnx-trunc-v1", lambda: qonnx_models.pooling_trunc(1), _TRUNC_DOC + " (Trunc v1)"),
    ]
    return recipes


RECIPES: dict[str, Recipe] = {r.name: r for r in _recipes()}
"""Every catalogue model by name."""


def names(form: str | None = None) -> list[str]:
    """Catalogue model names, all or of one form (one of `FORMS`), in catalogue order."""
    if form is not None and form not in FORMS:
        raise ValueError(f"unknown form {form!r}; expected one of {FORMS}")
    return [n for n, r in RECIPES.items() if form is None or r.form == form]


def form_of(name: str) -> str:
    """The form ("float", "qdq", "qop", "qcdq", "qonnx") of a catalogue model."""
    return RECIPES[name].form


class ModelCatalogue:
    """Builds catalogue models into `directory` on first request and caches their paths.

    `path(name)` builds (once) and returns the .onnx path; `load(name)` returns the ModelProto;
    `run(name, inputs)` runs it under its oracle; `inputs(name, seed)` gives matching random inputs.
    """

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._paths: dict[str, Path] = {}
        self._lock = threading.RLock()

    def path(self, name: str) -> Path:
        if name not in RECIPES:
            raise KeyError(f"no test model named {name!r}; known: {', '.join(RECIPES)}")
        with self._lock:
            if name not in self._paths:
                path = self.directory / f"{name}.onnx"
                model = RECIPES[name].build(self, path)
                model.ir_version = IR_VERSION
                onnx.save(model, os.fspath(path))
                self._paths[name] = path
            return self._paths[name]

    def load(self, name: str) -> onnx.ModelProto:
        return onnx.load(os.fspath(self.path(name)))

    def inputs(self, name: str, seed: int = 0) -> dict[str, np.ndarray]:
        return random_inputs(self.path(name), seed)

    def run(self, name: str, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        return RECIPES[name].oracle(self.path(name), inputs)
