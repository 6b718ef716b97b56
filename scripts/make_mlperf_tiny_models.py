"""Build the MLPerf Tiny fixtures of tests/models/mlperf_tiny/: the four reference networks as float
ONNX graphs with seeded weights (tests/models/mlperf_tiny/architectures.py), each quantized by
onnxruntime's `quantize_static` three ways (QDQ per tensor, QDQ per channel, QOperator; uint8
activations, int8 weights, MinMax calibration on seeded inputs), one seeded float input per
network, and manifest.json (MACs, parameters, files).

    python scripts/make_mlperf_tiny_models.py [--output DIR] [--keep-float]

Deterministic: the same onnx / onnxruntime versions write the same files. The float graphs are
written only with --keep-float (as <network>-float.onnx).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "tests"))  # the test-model package: models.mlperf_tiny

from models import mlperf_tiny  # noqa: E402
from models.mlperf_tiny.architectures import BUILDERS, IR_VERSION, multiply_accumulates, random_input  # noqa: E402
from static_quantization import SeededCalibrationInputs, quantize_static  # noqa: E402

FORM_OPTIONS = {
    "qdq-u8s8": {"quant_format": "QDQ", "per_channel": False},
    "qdq-u8s8-perchannel": {"quant_format": "QDQ", "per_channel": True},
    "qop-u8s8": {"quant_format": "QOperator", "per_channel": False},
}
"""quantize_static's format and granularity per fixture form (everything else its defaults)."""
CALIBRATION_SEEDS = range(mlperf_tiny.CALIBRATION_SEED, mlperf_tiny.CALIBRATION_SEED + mlperf_tiny.CALIBRATION_SAMPLES)


def quantize(float_path: Path, network: str, form: str, path: Path) -> onnx.ModelProto:
    """`quantize_static` of the float model at `float_path` in `form`, saved to `path` (IR version
    lowered to what onnxruntime reads, checked)."""
    calibration = SeededCalibrationInputs(lambda seed: random_input(network, seed), CALIBRATION_SEEDS)
    return quantize_static(float_path, path, calibration, **FORM_OPTIONS[form], ir_version=IR_VERSION)


def build(output: Path, keep_float: bool) -> dict:
    output.mkdir(parents=True, exist_ok=True)
    manifest = {}
    with tempfile.TemporaryDirectory() as scratch:
        for network in mlperf_tiny.NETWORKS:
            float_model = BUILDERS[network]()
            float_path = (output if keep_float else Path(scratch)) / f"{network}-float.onnx"
            onnx.save(float_model, os.fspath(float_path))
            np.save(output / mlperf_tiny.input_path(network).name, random_input(network, mlperf_tiny.INPUT_SEED))
            models = {}
            for form in mlperf_tiny.FORMS:
                name = f"{network}-{form}"
                path = output / mlperf_tiny.path(name).name
                quantize(float_path, network, form, path)
                models[name] = {"file": path.name, "bytes": path.stat().st_size}
            manifest[network] = {
                "macs": multiply_accumulates(float_model),
                "parameters": int(sum(np.prod(t.dims) for t in float_model.graph.initializer)),
                "input": mlperf_tiny.input_path(network).name,
                "models": models,
            }
            print(f"{network}: {manifest[network]['macs']:,} MACs, {manifest[network]['parameters']:,} parameters, "
                  + ", ".join(f"{name} {entry['bytes']:,} B" for name, entry in models.items()))
    (output / mlperf_tiny.MANIFEST.name).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=mlperf_tiny.FIXTURES, help="default: %(default)s")
    parser.add_argument("--keep-float", action="store_true", help="also write the float graphs")
    arguments = parser.parse_args(argv)
    build(arguments.output, arguments.keep_float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
