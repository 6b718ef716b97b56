"""The RISC-V code generator's pass sequence. On the backend's tensor IR, before the kernel ABI's
form (`riscv_tensor_passes`):

    bitfold-riscv-tabulate-elementwise      elementwise chains of one byte tensor: one table lookup
    bitfold-riscv-fuse-elementwise          an elementwise generic's only elementwise reader computes it
    bitfold-riscv-count-thresholds          sign thresholds of popcounts: the count against a table
    bitfold-riscv-narrow-lanes              narrow operands: K >= 2 (RV32) / 4 (RV64) lanes a register
    bitfold-riscv-pair-lanes                RV64: two i32 accumulators in one register
    bitfold-riscv-wide-binary-words         RV64: XNOR-popcount on 64-bit words

then from the kernel ABI's memref form (`bitfold.backends.kernel.kernel_form`: bufferized, sub-byte
outputs in bytes) to register-allocated riscv dialects, as one named pipeline:
`bitfold-opt -p 'bitfold-lower-to-riscv{xlen=32 registers=27}'`. xDSL's passes wherever they are
right; bitfold's shims (each documented in its module) where 0.74 is wrong or missing:

    bitfold-riscv-expand-ctpop              without Zbb: math.ctpop as SWAR arith
    bitfold-riscv-expand-float-rounding     f32 roundeven/trunc/floor/ceil as exact arith
    bitfold-riscv-noop-clamps               without Zbb: min/max by a constant the value ranges
                                            make a no-op, removed (the others: a branch over a
                                            move each, bitfold-riscv-lower-arith; with Zbb: one
                                            min/max each)
    bitfold-riscv-fold-shifted-offsets      ((h + r) >> k) + c -> (h + r + c 2^k) >> k where
                                            nothing wraps (a requantization's zero point)
    bitfold-riscv-register-tiled-loops      linear generics: register tiles, pointer loops
    bitfold-riscv-linalg-to-loops           accumulators in registers, else xDSL's perfect nest
    lower-affine                            xDSL
    bitfold-riscv-memref-to-addresses       la for globals, packed sub-byte constants, reshapes
    convert-memref-to-ptr                   xDSL: index arithmetic + ptr ops
    convert-ptr-type-offsets                xDSL
    bitfold-riscv-canonicalize, bitfold-riscv-multiply-to-shift, licm, cse
                                            (xDSL's canonicalize, its dead code
                                            elimination in one pass: xdsl_compat)
    bitfold-riscv-lower-ptr                 lb/lbu/lh/lhu/lw/lwu/ld, sb/sh/sw/sd
    bitfold-riscv-lower-float               with F: f32 arith to F instructions, rne, rtz
    | bitfold-riscv-soft-float              without: integer arith and libgcc calls (rvfloat.libcall)
    bitfold-riscv-lower-arith               integer arith (xDSL's instructions where xDSL's
                                            are right), operands held in registers taken as
                                            such: no cast pairs for reconciling to remove
    convert-arith-to-riscv                  xDSL: what is left
    convert-scf-to-riscv-scf, convert-func-to-riscv-func, reconcile-unrealized-casts
    bitfold-riscv-immediates                li operands -> addi/slli/andi/... forms
    riscv-scf-for-infer-constant-step       xDSL: loop steps as immediates
    bitfold-riscv-hoist-constants           li/la out of innermost loops where registers allow
    bitfold-riscv-sink-constants            li/la copied next to each nest using them
    bitfold-riscv-copy-loop-values          copies where xDSL's loop allocation is unsound
    bitfold-riscv-allocate-registers        xDSL's allocator with bitfold's loop allocation
                                            (regalloc/loop_allocation.py), s0..s11, spilling
    riscv-lower-parallel-mov                xDSL
    bitfold-riscv-expand-calls              libcalls: caller-saved registers saved, a0/a1, call
    bitfold-riscv-loops-to-branches         loops to labels and branches: xDSL's
                                            convert-riscv-scf-to-riscv-cf in linear time
    bitfold-riscv-prologue-epilogue         frame: spill slots, saved s registers, 16-byte
                                            aligned; no useless li/mv

While `lower_to_riscv` runs, xDSL's pattern walkers fill their worklists from a list rather than
nested generators (`bitfold.dialects.xdsl_compat.worklist_walk`: same order, faster on deep nests),
a greedy applier tries on an op only the patterns that can match its type
(`bitfold.dialects.xdsl_compat.pattern_dispatch`: the same rewrites), and casts are made without
IRDL's generic builder (`bitfold.dialects.xdsl_compat.cast_construction`: the same ops).

The folders hold the passes by job: `lowering/` (instruction selection), `schedule/` (loop nests),
`regalloc/` (registers), `emission/` (frame and assembly text).
"""

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.backend.riscv.lowering.convert_arith_to_riscv import ConvertArithToRiscvPass
from xdsl.backend.riscv.lowering.convert_func_to_riscv_func import ConvertFuncToRiscvFuncPass
from xdsl.backend.riscv.lowering.convert_scf_to_riscv_scf import ConvertScfToRiscvPass
from xdsl.context import Context
from xdsl.dialects import func, get_all_dialects
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.convert_memref_to_ptr import ConvertMemRefToPtr
from xdsl.transforms.convert_ptr_type_offsets import ConvertPtrTypeOffsetsPass
from xdsl.transforms.loop_invariant_code_motion import LoopInvariantCodeMotionPass
from xdsl.transforms.lower_affine import LowerAffinePass
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass
from xdsl.transforms.riscv_lower_parallel_mov import RISCVLowerParallelMovPass
from xdsl.transforms.riscv_scf_for_infer_constant_step import RiscvScfForInferConstantStepPass
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.kernel.isa import Isa, IsaError
from bitfold.backends.riscv.emission.prologue import BitfoldRiscvPrologueEpiloguePass
from bitfold.backends.riscv.lowering.canonicalize import BitfoldRiscvCanonicalizePass
from bitfold.backends.riscv.lowering.float_rounding import BitfoldRiscvExpandFloatRoundingPass
from bitfold.backends.riscv.lowering.immediates import BitfoldRiscvImmediatesPass
from bitfold.backends.riscv.lowering.linalg_to_loops import BitfoldRiscvLinalgToLoopsPass
from bitfold.backends.riscv.lowering.loops_to_branches import BitfoldRiscvLoopsToBranchesPass
from bitfold.backends.riscv.lowering.lower_floats import BitfoldRiscvLowerFloatPass
from bitfold.backends.riscv.lowering.lower_integers import BitfoldRiscvLowerArithPass
from bitfold.backends.riscv.lowering.lower_memory import BitfoldRiscvLowerPtrPass, BitfoldRiscvMemrefToAddressesPass
from bitfold.backends.riscv.lowering.multiply_to_shift import BitfoldRiscvMultiplyToShiftPass
from bitfold.backends.riscv.lowering.noop_clamps import BitfoldRiscvNoopClampsPass
from bitfold.backends.riscv.lowering.population_count import BitfoldRiscvExpandCtpopPass
from bitfold.backends.riscv.lowering.registers import ALLOCATABLE_INTEGER_REGISTERS
from bitfold.backends.riscv.lowering.shifted_offsets import BitfoldRiscvFoldShiftedOffsetsPass
from bitfold.backends.riscv.lowering.soft_float import BitfoldRiscvSoftFloatPass
from bitfold.backends.riscv.lowering.soft_float_calls import BitfoldRiscvExpandCallsPass
from bitfold.backends.riscv.regalloc.constant_hoisting import BitfoldRiscvHoistConstantsPass
from bitfold.backends.riscv.regalloc.constant_sinking import BitfoldRiscvSinkConstantsPass
from bitfold.backends.riscv.regalloc.loop_value_copies import BitfoldRiscvCopyLoopValuesPass
from bitfold.backends.riscv.regalloc.register_allocation import (
    BitfoldRiscvAllocateRegistersPass,
    NeedsSpilling,
    RegisterAllocationError,
)
from bitfold.backends.riscv.schedule.binary_words import BitfoldRiscvWideBinaryWordsPass
from bitfold.backends.riscv.schedule.count_thresholds import BitfoldRiscvCountThresholdsPass
from bitfold.backends.riscv.schedule.fused_elementwise import BitfoldRiscvFuseElementwisePass
from bitfold.backends.riscv.schedule.lane_pairs import BitfoldRiscvPairLanesPass
from bitfold.backends.riscv.schedule.narrow_lanes import BitfoldRiscvNarrowLanesPass
from bitfold.backends.riscv.schedule.register_tiled_loops import BitfoldRiscvRegisterTiledLoopsPass
from bitfold.backends.riscv.schedule.tabulated_elementwise import BitfoldRiscvTabulateElementwisePass
from bitfold.dialects.xdsl_compat.cast_construction import direct_cast_construction
from bitfold.dialects.xdsl_compat.pattern_dispatch import dispatched_pattern_application
from bitfold.dialects.xdsl_compat.worklist_walk import listed_worklist_walk

MAX_REGISTER_ARGUMENTS = 8
"""a0..a7: the function takes every input and output buffer and the workspace in a register"""


class CodegenError(DiagnosticException):
    """Input the RISC-V code generator cannot compile (one line, naming the op)."""


def isa_of(arch: str) -> Isa:
    """The parsed ISA string (`isa.py`), or a CodegenError naming what is wrong."""
    try:
        return Isa.parse(arch)
    except IsaError as error:
        raise CodegenError(f"riscv: {error}") from None


def check_input(module: ModuleOp, xlen: int) -> func.FuncOp:
    """The module's one public function, after checking that every integer fits a register."""
    functions = [
        f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks and f.sym_visibility in (None,)
    ] or [f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks]
    if len(functions) != 1:
        raise CodegenError(f"riscv: expected one public function with a body, found {len(functions)}")
    function = functions[0]
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            element = getattr(value.type, "element_type", value.type)
            if isinstance(element, IntegerType) and element.width.data > xlen:
                raise CodegenError(
                    f"riscv: i{element.width.data} values are not supported on rv{xlen} ({op.name} in "
                    f"@{function.sym_name.data})"
                )
    arguments = len(function.function_type.inputs) + len(function.function_type.outputs) + 1  # the workspace
    if arguments > MAX_REGISTER_ARGUMENTS:
        raise CodegenError(
            f"riscv: @{function.sym_name.data} has {arguments - 1} inputs and outputs; at most "
            f"{MAX_REGISTER_ARGUMENTS - 1} buffers can be passed in registers beside the workspace"
        )
    return function


BUDGET_STEP = 4
TILE_REGISTER_BUDGETS = tuple(ALLOCATABLE_INTEGER_REGISTERS - fewer * BUDGET_STEP for fewer in range(3))
"""Registers the tile planner may fill (27, 23, 19), per loop nest: `lower_to_riscv` lowers the
budget of the nests that need spilling until none does; the smallest budget's code may spill.
Below it, budgets `BUDGET_STEP` apart (15, 11, 7, 3) for the nests that cannot be allocated even
spilling: a loop's variables, bounds and carried values (a sliding window's held row) are not
spilled, and smaller tiles hold fewer of them."""
ALL_NESTS = 0
"""the key of a budget step that applies to every nest not named (nests are numbered from 1)"""


def riscv_tensor_passes(xlen: int) -> list[ModulePass]:
    """The passes on the backend's tensor IR, before `kernel_form` (module docstring)."""
    wide = [BitfoldRiscvPairLanesPass(), BitfoldRiscvWideBinaryWordsPass()] if xlen == 64 else []
    return [BitfoldRiscvTabulateElementwisePass(), BitfoldRiscvFuseElementwisePass(), BitfoldRiscvCountThresholdsPass(),
            BitfoldRiscvNarrowLanesPass(xlen=xlen), *wide]


def riscv_passes(
    xlen: int,
    tile_registers: int = TILE_REGISTER_BUDGETS[0],
    spill: bool = True,
    nest_registers: tuple[int, ...] = (),
    registers: int = ALLOCATABLE_INTEGER_REGISTERS,
    zbb: bool = False,
    hard_float: bool = False,
) -> list[ModulePass]:
    """The passes from the kernel ABI's memref form to register-allocated riscv (module docstring):
    register tiles planned for `tile_registers` (or the budgets `nest_registers` gives nests by
    number: number, registers, ...), `registers` allocatable, spilling allowed or not, Zbb's and F's instructions used or not."""
    return [
        *([] if zbb else [BitfoldRiscvExpandCtpopPass()]),
        BitfoldRiscvExpandFloatRoundingPass(),
        *([] if zbb else [BitfoldRiscvNoopClampsPass()]),
        BitfoldRiscvFoldShiftedOffsetsPass(),
        BitfoldRiscvRegisterTiledLoopsPass(xlen=xlen, registers=tile_registers, nest_registers=nest_registers),
        BitfoldRiscvLinalgToLoopsPass(),
        LowerAffinePass(),
        BitfoldRiscvMemrefToAddressesPass(xlen=xlen),
        ConvertMemRefToPtr(),
        ConvertPtrTypeOffsetsPass(),
        BitfoldRiscvCanonicalizePass(),
        BitfoldRiscvMultiplyToShiftPass(),
        LoopInvariantCodeMotionPass(),
        CommonSubexpressionElimination(),
        BitfoldRiscvCanonicalizePass(),
        BitfoldRiscvLowerPtrPass(xlen=xlen, hard_float=hard_float),
        BitfoldRiscvLowerFloatPass(xlen=xlen) if hard_float else BitfoldRiscvSoftFloatPass(),
        BitfoldRiscvLowerArithPass(xlen=xlen, zbb=zbb),
        ConvertArithToRiscvPass(),
        ConvertScfToRiscvPass(),
        ConvertFuncToRiscvFuncPass(),
        ReconcileUnrealizedCastsPass(),
        BitfoldRiscvImmediatesPass(xlen=xlen),
        RiscvScfForInferConstantStepPass(),
        BitfoldRiscvHoistConstantsPass(registers=registers),
        BitfoldRiscvSinkConstantsPass(),
        BitfoldRiscvCopyLoopValuesPass(),
        BitfoldRiscvAllocateRegistersPass(xlen=xlen, registers=registers, spill=spill),
        RISCVLowerParallelMovPass(),
        BitfoldRiscvExpandCallsPass(xlen=xlen),
        BitfoldRiscvLoopsToBranchesPass(),
        BitfoldRiscvPrologueEpiloguePass(xlen=xlen),
    ]


def riscv_context() -> Context:
    """A context holding every xDSL dialect (the passes build riscv, riscv_scf, riscv_func, ptr ops)."""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def lower_to_riscv(
    module: ModuleOp,
    xlen: int,
    ctx: Context | None = None,
    after: Callable[[ModulePass, ModuleOp], None] | None = None,
    registers: int | None = None,
    zbb: bool = False,
    hard_float: bool = False,
) -> ModuleOp:
    """`riscv_passes` on a copy of `module` (the kernel ABI's memref form); returns the lowered
    copy. Every loop nest starts with the largest register-tile budget (at most `registers`,
    default all: `ALLOCATABLE_INTEGER_REGISTERS`); while the allocation needs spilling, the nests
    the allocator finds crowded (`NeedsSpilling.crowded`; all, `ALL_NESTS`, where it names none) get a smaller
    budget of `TILE_REGISTER_BUDGETS`, by as many steps as their excess registers fill, and the
    module is lowered again; once a crowded nest has the smallest budget, spilling is allowed.
    Where even spilling cannot allocate (`RegisterAllocationError`), the nests it names (all where
    none) get the budgets below those one by one, until the smallest is refused too.
    `after` sees each pass and the module it produced, and the allocation pass of an attempt
    that did not allocate (bench/compile_speed.py times them)."""
    ctx = riscv_context() if ctx is None else ctx
    registers = ALLOCATABLE_INTEGER_REGISTERS if registers is None else registers
    budgets = sorted({min(budget, registers) for budget in TILE_REGISTER_BUDGETS}, reverse=True)
    spilling = len(budgets)  # budget steps tried without spilling first
    budgets += range(budgets[-1] - BUDGET_STEP, 0, -BUDGET_STEP)
    step_of: dict[int, int] = {}  # nest number (or ALL_NESTS) -> index of its budget in `budgets`
    spill = spilling == 1
    while True:
        attempt = module.clone()
        nest_registers = tuple(x for nest, step in sorted(step_of.items()) if nest != ALL_NESTS
                               for x in (nest, budgets[step]))
        try:
            with listed_worklist_walk(), dispatched_pattern_application(), direct_cast_construction():
                for module_pass in riscv_passes(xlen, budgets[step_of.get(ALL_NESTS, 0)], spill=spill,
                                                nest_registers=nest_registers,
                                                registers=registers, zbb=zbb, hard_float=hard_float):
                    module_pass.apply(ctx, attempt)
                    if after is not None:
                        after(module_pass, attempt)
        except NeedsSpilling as needs:
            if after is not None:
                after(module_pass, attempt)
            step_of, spill = smaller_budgets(step_of, needs.crowded, spilling)
            continue
        except RegisterAllocationError as refused:
            if after is not None:
                after(module_pass, attempt)
            # one step at a time: what refuses is the values not spilled (loop variables, bounds,
            # carried values), not monotonic in the budget (a larger tile may unroll a loop: max_pool
            # on 8 registers fits 15, not 19 nor 11)
            crowded = None if refused.crowded is None else dict.fromkeys(refused.crowded, 1)
            smaller, _ = smaller_budgets(step_of, crowded, len(budgets), least=spilling)
            if smaller == step_of:
                raise
            step_of = smaller
            continue
        return attempt


def smaller_budgets(
    step_of: dict[int, int], crowded: dict[int, int] | None, steps: int, least: int = 0
) -> tuple[dict[int, int], bool]:
    """The budget steps after an attempt that did not allocate: each crowded nest's step (where
    absent, the step of `ALL_NESTS`) advanced by ceil(excess / BUDGET_STEP) (at least one and at
    least to `least`, at most to the last of `steps`, never back), every nest's and `ALL_NESTS`'s
    by one where `crowded` is None; and whether a crowded nest reached the last step (after
    `NeedsSpilling`: the next attempt may spill)."""
    if crowded is None:
        crowded = dict.fromkeys([ALL_NESTS, *step_of], 1)
    advanced = dict(step_of)
    for nest, excess in crowded.items():
        step = step_of.get(nest, step_of.get(ALL_NESTS, 0))
        advanced[nest] = max(step, min(steps - 1, max(least, step + max(1, -(-excess // BUDGET_STEP)))))
    return advanced, any(advanced[nest] >= steps - 1 for nest in crowded)


@dataclass(frozen=True)
class BitfoldLowerToRiscvPipeline(ModulePass):
    """`lower_to_riscv` in place: the kernel ABI's memref form to register-allocated riscv for
    RV`xlen`, `registers` allocatable (module docstring lists the passes)."""

    name = "bitfold-lower-to-riscv"

    xlen: int = 32
    registers: int = ALLOCATABLE_INTEGER_REGISTERS
    zbb: bool = False
    hard_float: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lowered = lower_to_riscv(op, self.xlen, registers=self.registers, zbb=self.zbb, hard_float=self.hard_float)
        block = lowered.body.block
        lowered.body.detach_block(block)
        op.body.detach_block(op.body.block)
        op.body.add_block(block)
