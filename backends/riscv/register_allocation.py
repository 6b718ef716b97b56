"""`bitfold-riscv-allocate-registers`: xDSL's block-naive register allocator over all 27
allocatable integer registers.

xDSL 0.74's `riscv-allocate-registers` hands out only `t0..t6` and `a0..a7` (15 registers) and
raises `OutOfRegisters` beyond them; it never spills. Loop nests of a convolution (seven
induction variables, their bounds, base pointers, hoisted constants) need more. This pass runs
the same allocator with the callee-saved `s0..s11` added after the caller-saved registers (so
they are used only when the others are taken; the prologue then saves the ones used). There
are no calls in a kernel, so caller-saved registers never need saving. Running out of all 27
is an error with one line.

When the 27 do not suffice, the pass retries with every constant (`li`), then also every global
address (`la`), rematerialized right before each use inside a loop instead of being held in a
register across the loop nest (a few more instructions executed, fewer live values).

`riscv.parallel_mov`s that `convert-scf-to-riscv-scf` creates for loop-carried values record
the value's bit width, and xDSL's `riscv-lower-parallel-mov` accepts only 32 and 64: an i8
accumulator (a max pool) fails. Every integer sits in a full register here (see
`bitfold.backends.riscv.registers`), so the widths become XLEN.
"""

from dataclasses import dataclass

from xdsl.backend.register_stack import OutOfRegisters
from xdsl.backend.riscv.register_allocation import RegisterAllocatorLivenessBlockNaive
from xdsl.backend.riscv.register_stack import RiscvRegisterStack
from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func, riscv_scf, rv32, rv64
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i32
from xdsl.dialects.riscv import FloatRegisterType, Registers
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.riscv.instructions import LaOp

ALLOCATION_ORDER = (
    *reversed(Registers.S),
    *reversed((*Registers.T, *Registers.A)),
    *reversed(FloatRegisterType.allocatable_registers()),
)
"""The stack pops from the end: t0..t6, a0..a7, then s0..s11."""


REMATERIALIZED: tuple[tuple[type, ...], ...] = ((), (rv32.LiOp, rv64.LiOp), (rv32.LiOp, rv64.LiOp, LaOp))
"""What each allocation attempt rematerializes inside loops: nothing, constants, also addresses."""


def widen_parallel_moves(function: riscv_func.FuncOp, xlen: int) -> None:
    for op in function.walk():
        if isinstance(op, riscv.ParallelMovOp):
            widths = [xlen if isinstance(v.type, riscv.IntRegisterType) else w for v, w in
                      zip(op.inputs, op.input_widths.get_values())]
            op.input_widths = DenseArrayBase.from_list(i32, widths)


def rematerialize_constants(function: riscv_func.FuncOp, kinds: tuple[type, ...]) -> None:
    """Each op of `kinds` (`li`, `la`) used inside a loop gets a copy right before each such use."""
    for op in list(function.walk()):
        if not isinstance(op, kinds):
            continue
        for use in list(op.results[0].uses):
            user = use.operation
            if user.parent_block() is op.parent_block() or isinstance(user, riscv_scf.ForOp | riscv_scf.RofOp):
                continue
            copy = op.clone()
            Rewriter.insert_op(copy, InsertPoint.before(user))
            user.operands[use.index] = copy.results[0]
        if not op.results[0].uses:
            Rewriter.erase_op(op)


def _allocate(function: riscv_func.FuncOp) -> None:
    stack = RiscvRegisterStack.get(allocatable_registers=ALLOCATION_ORDER)
    RegisterAllocatorLivenessBlockNaive(stack).allocate_func(function)


@dataclass(frozen=True)
class BitfoldAllocateRegistersPass(ModulePass):
    name = "bitfold-riscv-allocate-registers"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, riscv_func.FuncOp)]:
            widen_parallel_moves(function, self.xlen)
            region_dce(function.body)  # e.g. loop steps that became immediates
            name = function.sym_name.data
            for kinds in REMATERIALIZED:
                attempt = function.clone()
                rematerialize_constants(attempt, kinds)
                try:
                    _allocate(attempt)
                except OutOfRegisters:
                    continue
                Rewriter.replace_op(function, attempt)
                break
            else:
                raise DiagnosticException(f"riscv: @{name} needs more than 27 integer registers (no spilling yet)")
