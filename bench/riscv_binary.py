"""Executed instructions per binary multiply-accumulate of bitfold's XNOR-popcount kernels on
RISC-V, without and with Zbb (`cpop`):

    conv3x3   QONNX binary layer: BipolarQuant(x) -> Conv 3x3, 64 -> 64 channels on 16x16,
              padding 1, bipolar weights -> BatchNormalization -> BipolarQuant (a threshold)
    fc        BipolarQuant(x) (8 x 1024) -> MatMul 1024 -> 256, bipolar weights -> Mul, Add ->
              BipolarQuant

A binary MAC is one product of the float layer (padded taps included: 64 * 64 * 9 per output
pixel), so 32 of them share one word's xor and popcount. Each compiled function runs once under
qemu (bitfold's instruction counter), its outputs checked bit for bit against bitfold's
interpreter on the integer IR.

    python bench/riscv_binary.py [--target rv32im rv32im_zbb ...]
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the fixtures' builder
from models.binary_networks import BinaryGraph

TARGETS = ("rv32im", "rv32im_zbb", "rv64im", "rv64im_zbb")
CHANNELS, IMAGE = 64, 16
BATCH, FEATURES, UNITS = 8, 1024, 256


def conv3x3() -> tuple[onnx.ModelProto, int]:
    g = BinaryGraph(seed=1)
    x = g.bipolar("x", "x_sign")
    h = g.node("Conv", [x, g.bipolar_weight("w", (CHANNELS, CHANNELS, 3, 3))], "conv", kernel_shape=[3, 3], pads=[1] * 4)
    y = g.norm_sign(h, "y", CHANNELS)
    macs = CHANNELS * IMAGE * IMAGE * CHANNELS * 9
    return g.model("binary_conv3x3", [1, CHANNELS, IMAGE, IMAGE], y, [1, CHANNELS, IMAGE, IMAGE]), macs


def fc() -> tuple[onnx.ModelProto, int]:
    g = BinaryGraph(seed=2)
    x = g.bipolar("x", "x_sign")
    h = g.node("MatMul", [x, g.bipolar_weight("w", (FEATURES, UNITS))], "fc")
    y = g.sign(h, "y", UNITS, (UNITS,))
    return g.model("binary_fc", [BATCH, FEATURES], y, [BATCH, UNITS]), BATCH * FEATURES * UNITS


KERNELS = {"conv3x3": conv3x3, "fc": fc}


def count(model: onnx.ModelProto, target: str, workdir: Path) -> int:
    path = workdir / f"{model.graph.name}.onnx"
    onnx.save(model, path)
    compiled = compile_model(import_model(path), target)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    stored = compiled.quantize({"x": np.random.default_rng(0).normal(size=shape).astype(np.float32)})
    counted = compiled.count_qemu(stored, workdir / target)
    for got, want in zip(counted.outputs, compiled.run_reference(stored), strict=True):
        if not np.array_equal(got, want):
            raise SystemExit(f"{model.graph.name} on {target}: qemu differs from the interpreter")
    return counted.instructions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", nargs="+", default=TARGETS)
    args = parser.parse_args()
    print("| kernel | binary MACs | " + " | ".join(args.target) + " |")
    print("| --- | --- |" + " --- |" * len(args.target))
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in KERNELS.items():
            model, macs = build()
            cells = []
            for target in args.target:
                workdir = Path(tmp) / name
                (workdir / target).mkdir(parents=True, exist_ok=True)
                instructions = count(model, target, workdir)
                cells.append(f"{instructions:,} ({instructions / macs:.3f})")
            print(f"| {name} | {macs:,} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
