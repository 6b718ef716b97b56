"""ONNX ops that repeat elements (conventions in `base.py`): Expand and Tile. They copy
elements without arithmetic, so their references are exact for every element type."""

from collections.abc import Sequence

import numpy as np
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from bitfold.dialects.onnx.base import OnnxOp


@irdl_op_definition
class ExpandOp(OnnxOp):
    """output = input broadcast to `shape` multidirectionally: the output shape is numpy's
    broadcast of input's shape and `shape` (a 1 in `shape` keeps input's dimension, so the
    result may be larger than `shape` but never smaller than the input)."""

    name = "onnx.Expand"
    input = operand_def()
    shape = operand_def()
    output = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, shape = operands
        target = np.broadcast_shapes(x.shape, tuple(int(size) for size in shape.reshape(-1)))
        return (np.broadcast_to(x, target).copy(),)


@irdl_op_definition
class TileOp(OnnxOp):
    """output = input repeated `repeats[i]` times along axis i (`repeats` has one entry per
    axis): output[j0, ..., jn] = input[j0 mod d0, ..., jn mod dn]."""

    name = "onnx.Tile"
    input = operand_def()
    repeats = operand_def()
    output = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, repeats = operands
        if repeats.size != x.ndim:
            raise ValueError(f"{self.name}: {repeats.size} repeats for an input of rank {x.ndim}")
        return (np.tile(x, [int(r) for r in repeats.reshape(-1)]),)


OPS = [ExpandOp, TileOp]
