"""Executed instructions per layer: labels at layer boundaries, counted by address under qemu.

`mark_layers(function, ops)` puts a `riscv.label` `bitfold_layer_<i>` before the i-th layer op and
`bitfold_layer_end` before the return; the labels are ops without effects on values, so every
pass keeps them in program order, and they reach the assembly as local symbols. Under the
instruction counter with `profile=on` each executed address is counted;
`instructions_by_layer` gives layer i every instruction at or after its label and before the next
label, and the code before the first label or after the end label (prologue, workspace views,
epilogue) to the function's entry and exit. `ops_by_layer` splits the marked function's ops at the
same labels, at any stage of lowering (the labels stay in program order)."""

import bisect
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
from xdsl.dialects import func, riscv
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.kernel.harness.execution import (
    buffer_layouts,
    count_program,
    label_addresses,
    write_kernel,
)
from bitfold.backends.kernel.harness.toolchain import build_program

LABEL_PREFIX = "bitfold_layer_"
END_LABEL = f"{LABEL_PREFIX}end"


class LayerInstructions(NamedTuple):
    per_layer: list[int]
    """Instructions executed by each layer, in the order of `mark_layers`' ops."""
    entry_and_exit: int
    """Instructions before the first layer and after the last (prologue, epilogue)."""
    outputs: list[np.ndarray]


def mark_layers(function: func.FuncOp, ops: Sequence[Operation]) -> None:
    """Insert the layer labels into `function` (module docstring)."""
    for i, op in enumerate(ops):
        Rewriter.insert_op(riscv.LabelOp(f"{LABEL_PREFIX}{i}"), InsertPoint.before(op))
    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    Rewriter.insert_op(riscv.LabelOp(END_LABEL), InsertPoint.before(returned))


def ops_by_layer(function: func.FuncOp, layers: int) -> list[list[Operation]]:
    """The top-level ops of the marked `function` from each layer's label to the next label."""
    per_layer: list[list[Operation]] = [[] for _ in range(layers)]
    current: list[Operation] | None = None
    for op in function.body.block.ops:
        if isinstance(op, riscv.LabelOp) and op.label.data.startswith(LABEL_PREFIX):
            name = op.label.data
            current = None if name == END_LABEL else per_layer[int(name.removeprefix(LABEL_PREFIX))]
        elif current is not None:
            current.append(op)
    return per_layer


def instructions_by_layer(by_address: dict[int, int], labels: dict[str, int], layers: int) -> tuple[list[int], int]:
    """Split per-address counts at the label addresses (module docstring): (per layer, entry and exit)."""
    boundaries = sorted((address, name) for name, address in labels.items())
    addresses = [address for address, _ in boundaries]
    per_layer = [0] * layers
    outside = 0
    for address, count in by_address.items():
        at = bisect.bisect_right(addresses, address) - 1
        name = boundaries[at][1] if at >= 0 else END_LABEL
        if name == END_LABEL:
            outside += count
        else:
            per_layer[int(name.removeprefix(LABEL_PREFIX))] += count
    return per_layer, outside


def count_layers(assembly: str, target: str, symbol: str, inputs: Sequence[np.ndarray],
                 outputs: Sequence[tuple[Sequence[int], np.dtype]], layers: int, workdir: Path) -> LayerInstructions:
    """Link the marked `assembly` into a harness program, run it once under the instruction counter
    with `profile=on`, and split the count by layer."""
    inputs = [np.asarray(array) for array in inputs]
    kernel = write_kernel(assembly, symbol, workdir)
    program = build_program([kernel], target, symbol, buffer_layouts(inputs), outputs, workdir)
    counted = count_program(program, target, [symbol], inputs, outputs, profile=True)
    assert counted.by_address is not None
    per_layer, outside = instructions_by_layer(counted.by_address, label_addresses(program, LABEL_PREFIX), layers)
    assert sum(per_layer) + outside == counted.instructions
    return LayerInstructions(per_layer, outside, counted.outputs)
