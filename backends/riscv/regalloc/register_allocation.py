"""`bitfold-riscv-allocate-registers`: registers for every value of a leaf function in the
structured `riscv_scf` form, with values spilled to stack slots when the registers do not
suffice. It refuses only a loop nest whose loop control alone does not fit (below).

Guarantees:
- Every integer value gets one of the allocatable registers: the first `registers` of t0..t6,
  a0..a7, s0..s11 (option `registers=N`, default all 27; `bitfold-riscv-allocate-registers{registers=8}`
  is t0..t6, a0). xDSL 0.74's `riscv-allocate-registers` hands out only t and a registers and never
  spills. The s registers come last, so they are used only when the t and a registers are taken;
  `bitfold-riscv-prologue-epilogue` saves the ones used. There are no calls in a kernel, so
  caller-saved registers never need saving.
- The arguments are copied out of a0..a7 by one `riscv.parallel_mov` at the entry (which orders
  the moves and breaks cycles), so the argument registers are allocatable after it.
- The allocation is first tried without spilling (`spill=False`: `NeedsSpilling` if that fails,
  naming the register-tiled nests the pressure model finds crowded).
  Values that do not fit are spilled: `sw`/`sd v, slot(sp)` right after the definition, `lw`/`ld`
  right before a use, or rematerialized instead where that is cheaper: `li`, `la`, `addi`/`slli`
  of those, and a spilled value's own reload. A reload is hoisted out of the loops where the
  value's register is not contended, and one reload serves every use inside such a loop; uses
  before the first contended op read the value itself. Slots of values never live at once share
  a place; the prologue allocates the area below the saved s registers (it covers every
  sp-relative access). The output is deterministic (ties broken by program order).
- `riscv.parallel_mov` widths become XLEN: `convert-scf-to-riscv-scf` records a loop-carried
  value's bit width, and xDSL's `riscv-lower-parallel-mov` accepts only 32 and 64 (an i8
  accumulator of a max pool fails). Every integer sits in a full register here (see
  `bitfold.backends.riscv.lowering.registers`).
- Before any other value is spilled, an outer loop's induction variable, bound and carried
  values that an inner loop does not read are stored around that inner loop where it runs out
  (`loop_state_spilling.py`: a store and a reload per outer iteration), and values of the
  function's top level that a crowded nest does not read (other layers' buffer addresses) are
  stored before it and reloaded after it; this is done even with `spill=False`, which refuses
  only the spilling below. The allocator is not tried (at first, or after a round) where the
  pressure model shows that the function cannot fit (`_Pressure.certainly_short`: more live
  values than registers, beyond what the loop windows of `loop_allocation.py` free).
- Refusal, in one line: a loop holds its induction variable, its bound and the values used inside
  it but defined before it in registers for its whole body, but for the windows above
  (`loop_allocation.py`), and its loop-carried values for most of it; so a nest needs about two
  registers for its innermost loop plus its accumulators and an instruction's operands.

How victims are chosen: the register pressure at every op is counted as the allocator allocates
(bottom-up, a loop's live-ins and carried registers held across its body: a slight overcount
where `loop_allocation.py` frees a carried register between uses). Where it exceeds the allocatable
registers, the values passing through (neither used nor defined there) are candidates; each costs
its store and reloads (or rematerializing instructions), weighted by how often they execute (loop
trip counts), and relieves the points it passes through. The cheapest relief per point is
spilled first, until every point fits: values defined before a loop nest and used rarely inside
it go first. One batch of spills, then the allocator; if it still runs out (the count is a
model), the next batch aims one register lower.
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from math import prod

from xdsl.backend.register_allocatable import RegisterAllocatableOperation
from xdsl.backend.register_stack import OutOfRegisters
from xdsl.backend.riscv.register_stack import RiscvRegisterStack
from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func, riscv_scf, rv32, rv64
from xdsl.dialects.builtin import DenseArrayBase, IntAttr, IntegerAttr, ModuleOp, i32
from xdsl.dialects.riscv import FloatRegisterType, IntRegisterType, Registers
from xdsl.dialects.riscv.attrs import si12
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.canonicalization_patterns.riscv import get_constant_value
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.riscv.lowering.instructions import LaOp, LdOp, LwOp, SdOp, SwOp
from bitfold.backends.riscv.lowering.registers import INTEGER_REGISTERS
from bitfold.backends.riscv.regalloc.loop_allocation import (
    LoopAwareAllocator,
    accumulation_chain,
    remove_copies,
    restored_value,
    restores,
)
from bitfold.backends.riscv.regalloc.loop_state_spilling import spill_loop_state
from bitfold.backends.riscv.regalloc.loop_value_copies import ancestor_in, copy_loop_values
from bitfold.backends.riscv.schedule.register_tiled_loops import NEST_ATTRIBUTE
from bitfold.dialects.xdsl_compat.dead_code import region_dce
from bitfold.dialects.xdsl_compat.live_ins import live_ins_per_block

Loop = riscv_scf.ForRofOperation

STORE_COST = 1
LOAD_COST = 2
"""Relative cost of one executed spill store / reload (an ALU instruction costs 1)."""

UNKNOWN_TRIP_COUNT = 16
"""Iterations assumed for a loop whose bounds are not constants."""

MAX_REMATERIALIZED_CHAIN = 3
"""`la` + `addi` + `slli`: longer chains are spilled rather than recomputed."""

REMATERIALIZED_STEPS = (riscv.AddiOp, rv32.SlliOp, rv64.SlliOp)
"""One-operand immediate instructions recomputed along with their `li`/`la` operand."""

LOOP_STATE_ROUNDS = 4
"""Tries of the outer loops' state spilling (one loop a nest each) before the other spills."""

SIMM12 = range(-(2**11), 2**11)
"""`addi` immediates and load/store offsets."""


class RegisterAllocationError(DiagnosticException):
    """A function the allocator cannot fit in the allocatable registers, even spilling.
    `crowded`: for each register-tiled nest (`NEST_ATTRIBUTE` of its loops) found too crowded,
    its largest excess of live values over registers; None where no nest is named (then every
    nest is to blame)."""

    def __init__(self, message: str, crowded: dict[int, int] | None = None):
        super().__init__(message)
        self.crowded = crowded


FLOAT_REGISTERS = (*Registers.FT, *Registers.FA, *Registers.FS)
"""The allocatable f registers in order of preference: ft0..ft11, fa0..fa7, fs0..fs11 (saved by
the prologue when used). The pressure model and spilling count integer registers only: a float
island is elementwise code that never needs more than a few of these 32."""


def allocation_order(registers: int) -> tuple[riscv.RISCVRegisterType, ...]:
    """The register stack pops from the end: the first `registers` of `INTEGER_REGISTERS`, in
    order, and every one of `FLOAT_REGISTERS`."""
    return (*reversed(INTEGER_REGISTERS[:registers]), *reversed(FLOAT_REGISTERS))


ALLOCATION_ORDER = allocation_order(len(INTEGER_REGISTERS))
"""The default stack: t0..t6, a0..a7, then s0..s11."""


def widen_parallel_moves(function: riscv_func.FuncOp, xlen: int) -> None:
    for op in function.walk():
        if isinstance(op, riscv.ParallelMovOp):
            widths = [xlen if isinstance(v.type, IntRegisterType) else w for v, w in
                      zip(op.inputs, op.input_widths.get_values())]
            op.input_widths = DenseArrayBase.from_list(i32, widths)


def copy_arguments_at_entry(function: riscv_func.FuncOp, xlen: int) -> set[riscv.RISCVRegisterType]:
    """The `mv`s out of argument registers (`convert-func-to-riscv-func`) become one
    `riscv.parallel_mov` at the entry; returns the argument registers it frees."""
    block = function.body.block
    moves = [use.operation for arg in block.args for use in arg.uses]
    if not moves or not all(isinstance(m, riscv.MVOp) and m.parent_block() is block for m in moves):
        return set()
    copy = riscv.ParallelMovOp(
        [m.rs for m in moves], [m.rd.type for m in moves], DenseArrayBase.from_list(i32, [xlen] * len(moves))
    )
    block.insert_op_before(copy, block.first_op)
    for move, result in zip(moves, copy.outputs):
        move.rd.replace_all_uses_with(result)
        block.erase_op(move)
    return {arg.type for arg in block.args}


class _Allocator(LoopAwareAllocator):
    """bitfold's loop allocation (loop_allocation.py), without xDSL's error report: running out
    is an expected outcome here, and the report prints the whole function at every loop level."""

    @staticmethod
    def carried_values(loop: Loop) -> set[SSAValue]:
        """Values of `loop`'s body that take the register of a carried block argument, so none of
        their own (what the pressure model counts): the yielded values and the accumulation
        chains."""
        yield_op = loop.body.block.last_op
        values = set(yield_op.operands)
        for position, argument in enumerate(loop.body.block.args[1:]):
            values.update(accumulation_chain(argument, position, yield_op) or ())
        return values


def taken_registers(function: riscv_func.FuncOp, free: set) -> set:
    """Registers the function uses as they are (sp, zero, arguments still read later), except
    `free` (arguments already copied out). Spilling adds only sp."""
    body = function.body
    used = RegisterAllocatableOperation.all_used_registers(body) - free
    return set(used | RegisterAllocatableOperation.all_excluded_registers(body))


def allocate(function: riscv_func.FuncOp, registers: int, taken: set) -> None:
    """xDSL's `allocate_func` with the first `registers` allocatable but those `taken`, in place.
    Raises `OutOfRegisters` (integer registers: spilling may help; the function is left as it
    was, `LoopAwareAllocator.undo`), or `RegisterAllocationError` where the f registers run out."""
    stack = RiscvRegisterStack.get(allocatable_registers=allocation_order(registers))
    for register in taken:
        stack.exclude_register(register)
    allocator = _Allocator(stack)
    block = function.body.block
    allocator.live_ins_per_block = live_ins_per_block(block)
    try:
        allocator.allocate_block(block)
    except OutOfRegisters:
        allocator.undo()
        pools = stack.available_registers
        if not pools[FloatRegisterType.register_pool_key()] and pools[IntRegisterType.register_pool_key()]:
            raise RegisterAllocationError(
                f"riscv: @{function.sym_name.data}: more f32 values live at once than the {len(FLOAT_REGISTERS)} f "
                "registers hold (float values are not spilled)"
            ) from None
        raise


# Pressure: the registers xDSL's allocator holds at each op.


@dataclass(eq=False)
class _Point:
    """An op where more values are live than there are registers."""

    op: Operation
    through: set[SSAValue]
    """values live across the op that it neither uses nor defines: what spilling can relieve"""
    pressure: int
    excess: int
    """live values beyond the registers (negative: registers to spare)"""


class _Pressure:
    """The points of a function over `capacity`, counted as xDSL's allocator works: bottom-up,
    a result's register free above its definition, an operand's taken at its last use, and a
    loop's induction variable, bound, loop-carried values and live-ins held for its whole body."""

    def __init__(self, function: riscv_func.FuncOp, capacity: int):
        self.capacity = capacity
        self.points: list[_Point] = []
        self.points_in: dict[Operation, list[_Point]] = defaultdict(list)
        """for each loop, the points anywhere in its body"""
        self._needs: dict[SSAValue, bool] = {}
        self._ends: dict[Operation, int] = {}
        self.shared = {v for op in function.walk() if isinstance(op, Loop) for v in _Allocator.carried_values(op)}
        """values in the register of a loop-carried block argument (the allocator says which)"""
        self.op_order = {op: i for i, op in enumerate(function.walk())}
        self.order = {v: i for i, v in enumerate(v for op in self.op_order for v in op.results)}
        """results in program order: ties are broken by it, so the output is deterministic"""
        block = function.body.block
        self.live_ins = live_ins_per_block(block)
        self._walk(block, set(), frozenset(), ())

    def needs_register(self, value: SSAValue) -> bool:
        """Takes one of the allocatable registers (constant zeros take `zero`)."""
        if (known := self._needs.get(value)) is not None:
            return known
        type_ = value.type
        needs = isinstance(type_, IntRegisterType) and not type_.is_allocated and value not in self.shared
        if needs and (constant := get_constant_value(value)) is not None:
            needs = constant.value.data != 0
        self._needs[value] = needs
        return needs

    def _walk(self, block: Block, live: set[SSAValue], pinned: frozenset, loops: tuple[Operation, ...]) -> None:
        """Backwards over `block` from `live` (the values live after it); `live` ends as the
        values live before it."""
        for op in reversed(block.ops):
            if isinstance(op, Loop):
                live.difference_update(op.results)
                body = op.body.block
                inside = [v for v in self.live_ins[body] if self.needs_register(v)]
                # state spilled around an inner loop: live up to its reload at the end of the body
                spilled = restores(op)
                relieved = {restored_value(op, which) for which in spilled}
                control = [
                    v for v in (op.stop, op.step_val, *body.args)
                    if v is not None and self.needs_register(v) and v not in relieved
                ]
                at_end = (live - relieved) | set(inside) | set(control) | {r.results[0] for r in spilled.values()}
                self._walk(body, at_end, pinned | {op.stop, op.step_val}, (*loops, op))
                live.update(inside)
                live.update(v for v in op.operands if self.needs_register(v))
                continue
            results = [r for r in op.results if self.needs_register(r)]
            operands = {v for v in op.operands if self.needs_register(v)}
            live.difference_update(results)
            still_live = len(operands & live)
            pressure = len(live) - still_live + max(len(results) + still_live, len(operands))
            if pressure > self.capacity:
                point = _Point(op, live - operands - pinned, pressure, pressure - self.capacity)
                self.points.append(point)
                for loop in loops:
                    self.points_in[loop].append(point)
            live.update(operands)

    def certainly_short(self) -> bool:
        """Whether no allocation fits: at some point the model's excess is more than the
        registers `loop_allocation.py` frees there although the model holds them (`freeable`)."""
        windows: dict[Operation, tuple[dict[Operation, int], list[int], int]] = {}
        return any(point.excess > freeable(point.op, windows) for point in self.points)

    def has_room(self, loop: Operation, value: SSAValue) -> bool:
        """Whether `value` can stay in a register throughout `loop` after all."""
        return all(p.excess < 0 for p in self.points_in.get(loop, ()) if value in p.through)

    def keep(self, loop: Operation, value: SSAValue) -> None:
        for point in self.points_in.get(loop, ()):
            if value in point.through:
                point.excess += 1

    def first_relieved(self, value: SSAValue) -> int:
        """Program position of the first crowded point `value` passes through."""
        return min(self.op_order[p.op] for p in self.points if value in p.through)

    def end(self, op: Operation) -> int:
        """Program position of the last op nested in `op` (itself if none)."""
        if op not in self._ends:
            self._ends[op] = self.op_order[op] + sum(1 for _ in op.walk()) - 1
        return self._ends[op]


def freeable(op: Operation, windows: dict[Operation, tuple[dict[Operation, int], list[int], int]]) -> int:
    """At most how many registers the model counts as held at `op` that `loop_allocation.py`
    gives to other values there: per enclosing loop, each carried argument outside an
    accumulation chain that is last used before `op` (a window), or by the inner loop holding
    `op` (which may start in its register), and each reload of its own state (`restores`).
    `windows` caches, per loop, its ops' positions, those last uses and that count."""
    freed = 0
    while isinstance(loop := op.parent_op(), Loop):
        block = loop.body.block
        if loop not in windows:
            positions = {o: i for i, o in enumerate(block.ops)}
            last_uses = [
                max((positions[a] for u in argument.uses if (a := ancestor_in(block, u.operation)) is not None),
                    default=-1)
                for k, argument in enumerate(block.args[1:])
                if accumulation_chain(argument, k, block.last_op) is None
            ]
            windows[loop] = positions, last_uses, len(restores(loop))
        positions, last_uses, reloaded = windows[loop]
        freed += sum(1 for last in last_uses if last <= positions[op]) + reloaded
        op = loop
    return freed


# Where values are reloaded, and what that costs.


def _trip_count(loop: Loop) -> int:
    start, stop = get_constant_value(loop.start), get_constant_value(loop.stop)
    if start is None or stop is None or loop.step_attr is None:
        return UNKNOWN_TRIP_COUNT
    return max(1, -(-abs(stop.value.data - start.value.data) // loop.step_attr.value.data))


def _loops_between(op: Operation, block: Block) -> Iterator[Operation]:
    """The loops enclosing `op` inside `block`, innermost first."""
    while op.parent_block() is not block:
        op = op.parent_op()
        yield op


def _spillable(value: SSAValue) -> bool:
    """Results, except a loop's initial carried values (they share the loop's register)."""
    if not isinstance(value, OpResult):
        return False
    for use in value.uses:
        op = use.operation
        if isinstance(op, Loop) and use.index >= len(op.operands) - len(op.iter_args):
            return False
    return True


def _instructions(op: Operation) -> int:
    if isinstance(op, rv32.LiOp | rv64.LiOp):
        value = op.immediate.value.data if isinstance(op.immediate, IntegerAttr) else 0
        return 1 if value in SIMM12 else 2 if -(2**31) <= value < 2**31 else 4
    return 2 if isinstance(op, LaOp) else 1


class _Reloads:
    """Where one spilled value is reloaded: right before each use, or before the outermost loop
    around it that has room to keep the value in a register (then one reload serves the loop).
    Uses before the first crowded point read the value itself."""

    def __init__(self, value: SSAValue, block: Block, pressure: _Pressure):
        self.value, self.block, self.pressure = value, block, pressure
        self.first_relieved = pressure.first_relieved(value)
        self.at: dict[Operation, SSAValue] = {}
        """anchor op -> the reload right before it"""
        self.held: dict[Operation, SSAValue] = {}
        """loop -> the reload that stays in a register throughout it"""

    def value_for(self, user: Operation, recompute) -> SSAValue:
        """The reload that `user` reads instead of the value (uses of outer loops first)."""
        loops = list(_loops_between(user, self.block))
        for loop in reversed(loops):
            if loop in self.held:
                return self.held[loop]
        anchor = user
        for loop in loops:
            if not self.pressure.has_room(loop, self.value):
                break
            anchor = loop
        if self.pressure.end([anchor, *_loops_between(anchor, self.block)][-1]) < self.first_relieved:
            return self.value
        if anchor not in self.at:
            self.at[anchor] = recompute(anchor)
            if anchor is not user:
                self.pressure.keep(anchor, self.value)
                self.held[anchor] = self.at[anchor]
        if isinstance(user, Loop) and anchor is user and self.value in (user.stop, user.step_val):
            self.held[user] = self.at[anchor]  # a loop's bound stays in its register for the loop
        return self.at[anchor]


@dataclass
class _Spiller:
    """Spills values of one function to stack slots; keeps the slots across batches."""

    function: riscv_func.FuncOp
    xlen: int
    slot_of: dict[Operation, SSAValue] = field(default_factory=dict)
    """each spill store and reload -> the spilled value (its slot)"""
    sp: SSAValue | None = None
    _frequency: dict[Block, int] = field(default_factory=dict)

    def frequency(self, op: Operation) -> int:
        """How often `op` runs per call (trip counts of the loops around it)."""
        block = op.parent_block()
        if block not in self._frequency:
            self._frequency[block] = prod(_trip_count(loop) for loop in _loops_between(op, self.function.body.block))
        return self._frequency[block]

    def is_reload(self, op: Operation) -> bool:
        return isinstance(op, LwOp | LdOp) and op in self.slot_of

    def rematerialized_chain(self, value: SSAValue, pressure: _Pressure) -> list[Operation] | None:
        """The ops recomputing `value` from nothing (`li`/`la`/a reload, then `addi`/`slli`)."""
        chain: list[Operation] = []
        while isinstance(value, OpResult) and len(chain) < MAX_REMATERIALIZED_CHAIN:
            op = value.op
            chain.insert(0, op)
            if isinstance(op, rv32.LiOp | rv64.LiOp | LaOp) or self.is_reload(op):
                return chain
            if not isinstance(op, REMATERIALIZED_STEPS) or not pressure.needs_register(op.rs1):
                return None
            value = op.rs1
        return None

    def cost(self, value: OpResult, pressure: _Pressure, crowded: set[Operation]) -> tuple[float, bool]:
        """(executed instructions added, rematerialize?) for relieving `value`: reloads hoisted
        out of the loops without crowded points."""
        block = value.op.parent_block()
        anchors = set()
        for use in value.uses:
            anchor = use.operation
            for loop in _loops_between(use.operation, block):
                if loop in crowded:
                    break
                anchor = loop
            anchors.add(anchor)
        reloads = sum(self.frequency(a) for a in anchors)
        spill = STORE_COST * self.frequency(value.op) + LOAD_COST * reloads
        if chain := self.rematerialized_chain(value, pressure):
            instructions = LOAD_COST if self.is_reload(chain[0]) else 0
            instructions += sum(_instructions(op) for op in chain if not self.is_reload(op))
            remat = instructions * reloads
            if self.is_reload(chain[0]) or remat <= spill:
                return remat, True
        return spill, False

    def relieve(self, capacity: int) -> bool:
        """Spill values until the pressure model fits `capacity`; False if nothing was spilled."""
        pressure = _Pressure(self.function, capacity)
        if not pressure.points:
            return False
        victims = self._choose(pressure)
        for value, rematerialize in victims:
            self._spill(value, rematerialize, pressure)
        region_dce(self.function.body)
        return True

    def _choose(self, pressure: _Pressure) -> list[tuple[OpResult, bool]]:
        """Cheapest relief per crowded point first, until no point is crowded."""
        cover: dict[SSAValue, list[_Point]] = defaultdict(list)
        for point in pressure.points:
            for value in sorted((v for v in point.through if v in pressure.order), key=pressure.order.__getitem__):
                cover[value].append(point)
        crowded = {loop for loop, points in pressure.points_in.items() if points}
        costs = {v: self.cost(v, pressure, crowded) for v in cover if _spillable(v)}
        relief = {v: len(cover[v]) for v in costs}
        remaining = len(pressure.points)
        victims = []
        while remaining:
            choices = [v for v in costs if relief[v] > 0]
            if not choices:
                self._refuse(pressure)
            best = min(choices, key=lambda v: (costs[v][0] / relief[v], -len(cover[v]), pressure.order[v]))
            victims.append((best, costs.pop(best)[1]))
            for point in cover[best]:
                point.excess -= 1
                if point.excess == 0:
                    remaining -= 1
                    for value in point.through:
                        if value in relief:
                            relief[value] -= 1
        return self._keep_unneeded(victims, cover)

    @staticmethod
    def _keep_unneeded(victims: list[tuple[OpResult, bool]], cover) -> list[tuple[OpResult, bool]]:
        """The victims without those that later choices made unnecessary (every point they
        relieve has a register to spare): the greedy choice overshoots."""
        kept = []
        for victim in reversed(victims):
            points = cover[victim[0]]
            if all(p.excess < 0 for p in points):
                for point in points:
                    point.excess += 1
            else:
                kept.append(victim)
        return kept[::-1]

    def _refuse(self, pressure: _Pressure):
        point = max((p for p in pressure.points if p.excess > 0), key=lambda p: p.excess)
        held = point.pressure - sum(1 for v in point.through if _spillable(v))
        loops = len(list(_loops_between(point.op, self.function.body.block)))
        raise RegisterAllocationError(
            f"riscv: @{self.function.sym_name.data}: a nest of {loops} loops holds {held} values in registers "
            f"(induction variables, bounds, loop-carried values, an instruction's operands), "
            f"{pressure.capacity} allocatable",
            crowded_nests(pressure.points),  # those not relieved
        )

    def _spill(self, value: OpResult, rematerialize: bool, pressure: _Pressure) -> None:
        """Store after the definition (unless recomputed), reload before the uses."""
        block = value.op.parent_block()
        chain = self.rematerialized_chain(value, pressure) if rematerialize else None
        slot = self.slot_of[chain[0]] if chain and self.is_reload(chain[0]) else value

        def outer_first(use):
            return len(list(_loops_between(use.operation, block))), pressure.op_order.get(use.operation, 0), use.index

        uses = sorted(value.uses, key=outer_first)
        if chain is None:
            store = (SwOp if self.xlen == 32 else SdOp)(self.stack_pointer(), value, 0)
            block.insert_op_after(store, value.op)
            self.slot_of[store] = slot
        reloads = _Reloads(value, block, pressure)
        for user, index in [(u.operation, u.index) for u in uses]:
            user.operands[index] = reloads.value_for(user, lambda anchor: self._recompute(chain, slot, anchor))

    def stack_pointer(self) -> SSAValue:
        if self.sp is None or self.sp.owner.parent is None:
            self.sp = rv32.GetRegisterOp(Registers.SP).res
            block = self.function.body.block
            block.insert_op_before(self.sp.owner, block.first_op)
        return self.sp

    def _recompute(self, chain: list[Operation] | None, slot: SSAValue, anchor: Operation) -> SSAValue:
        if chain is None:
            reload = (LwOp if self.xlen == 32 else LdOp)(self.stack_pointer(), 0)
            anchor.parent_block().insert_op_before(reload, anchor)
            self.slot_of[reload] = slot
            return reload.rd
        copies: list[Operation] = []
        for op in chain:
            copy = op.clone()
            if copies:
                copy.operands[0] = copies[-1].results[0]
            anchor.parent_block().insert_op_before(copy, anchor)
            if op in self.slot_of:
                self.slot_of[copy] = self.slot_of[op]
            copies.append(copy)
        return copies[-1].results[0]

    def spill_loop_state(self, capacity: int, pressure: _Pressure | None = None) -> bool:
        """Where the pressure model exceeds `capacity`: the top-level values passing through the
        crowded nests (`passing_nests`) spilled, and an outer loop's state around an inner loop
        (`loop_state_spilling.spill_loop_state`); False if there is neither. `pressure`: the
        function's at `capacity` where already measured."""
        pressure = _Pressure(self.function, capacity) if pressure is None else pressure
        crowded = sorted((p.op for p in pressure.points), key=pressure.op_order.__getitem__)
        top = self.function.body.block
        passing = self.passing_nests(pressure)
        for value in passing:
            self._spill(value, self.rematerialized_chain(value, pressure) is not None, pressure)
        if passing:
            region_dce(self.function.body)  # a rematerialized value's own op may go
            crowded = [op for op in crowded if op.parent is not None]
        return spill_loop_state(crowded, top, self.stack_pointer, self.xlen, self.slot_of) or bool(passing)

    def passing_nests(self, pressure: _Pressure) -> list[OpResult]:
        """Values of the function's top level live through a crowded nest that reads none of them
        (the buffer arguments of other layers): stored once, reloaded after the nest."""
        top = self.function.body.block
        first_at: dict[Operation, dict[SSAValue, int]] = {}
        """nest -> each value live through one of its points -> the first such point's index"""
        for index, point in enumerate(pressure.points):
            seen = first_at.setdefault(ancestor_in(top, point.op), {})
            for value in point.through.difference(seen):
                seen[value] = index
        found: dict[SSAValue, tuple[int, int]] = {}
        candidates: dict[SSAValue, set[Operation] | None] = {}
        """top-level value -> the top-level ops that use it (None: not a candidate), asked once"""
        for nest, seen in first_at.items():
            for value, index in seen.items():
                if value not in pressure.order or (value in found and found[value][0] <= index):
                    continue
                if value not in candidates:
                    candidates[value] = (
                        {ancestor_in(top, u.operation) for u in value.uses}
                        if isinstance(value, OpResult) and value.op.parent_block() is top and _spillable(value)
                        and not self.is_reload(value.op) else None
                    )
                users = candidates[value]
                if users is not None and value.op is not nest and nest not in users:
                    found[value] = (index, pressure.order[value])
        return sorted(found, key=found.__getitem__)  # the first point found at, then program order

    def allocate(self, registers: int, taken: set) -> bool:
        """Allocates the function with the spill code so far, its slots assigned; False (the
        function as it was, for more spilling) where it runs out of registers."""
        self.assign_slots()
        copies = copy_loop_values(self.function)  # spill code may share a value between loop groups again
        try:
            allocate(self.function, registers, taken)
            return True
        except OutOfRegisters:
            remove_copies(copies)
            return False

    def assign_slots(self) -> None:
        """Offsets from sp: spilled values live at the same time get different slots."""
        self.slot_of = {op: slot for op, slot in self.slot_of.items() if op.parent is not None}
        order = {op: i for i, op in enumerate(self.function.walk())}
        ops_of: dict[SSAValue, list[Operation]] = defaultdict(list)
        for op, slot in self.slot_of.items():
            ops_of[slot].append(op)
        last: dict[Operation, int] = {}
        """op -> position of the last op nested in it"""
        intervals = []
        for slot, ops in ops_of.items():
            block = slot.owner.parent_block()
            if block is None:  # a spilled loop bound rematerialized since: its store's block
                block = min(ops, key=order.__getitem__).parent_block()
            end = 0
            for op in ops:
                top = [op, *_loops_between(op, block)][-1]  # a reload in a loop: the slot lives through it
                if top not in last:
                    last[top] = order[top] + sum(1 for _ in top.walk()) - 1
                end = max(end, last[top])
            intervals.append((min(order[op] for op in ops), end, slot))
        offset_of: dict[SSAValue, int] = {}
        free_at: list[int] = []
        """per slot place: the position after which it is free"""
        for start, end, slot in sorted(intervals, key=lambda i: i[:2]):
            place = next((i for i, free in enumerate(free_at) if free < start), len(free_at))
            if place == len(free_at):
                free_at.append(end)
            free_at[place] = end
            offset_of[slot] = place * self.xlen // 8
        for op, slot in self.slot_of.items():
            if offset_of[slot] not in SIMM12:
                raise RegisterAllocationError(f"riscv: @{self.function.sym_name.data}: spill area over 2 KiB")
            op.attributes["immediate"] = IntegerAttr(offset_of[slot], si12)


class NeedsSpilling(RegisterAllocationError):
    """The function does not fit the registers without spilling, and spilling was not allowed
    (`crowded`: where the pressure model finds more values live than registers)."""


def nest_of(op: Operation) -> int | None:
    """The number of the register-tiled nest `op` lies in (`NEST_ATTRIBUTE`), None outside nests."""
    while op is not None and not isinstance(op, riscv_func.FuncOp):
        if isinstance(nest := op.attributes.get(NEST_ATTRIBUTE), IntAttr):
            return nest.data
        op = op.parent_op()
    return None


def crowded_nests(points: Iterable[_Point]) -> dict[int, int] | None:
    """Nest number -> the largest excess of the nest's `points` (of a `_Pressure`) over its
    capacity, None if no point over capacity lies in a nest."""
    crowded: dict[int, int] = {}
    for point in points:
        if point.excess > 0 and (nest := nest_of(point.op)) is not None:
            crowded[nest] = max(crowded.get(nest, 0), point.excess)
    return crowded or None


def allocate_function(function: riscv_func.FuncOp, xlen: int, registers: int, spill: bool = True) -> None:
    """Allocates the registers of `function` (which gets spill code, unless `spill` is False:
    then `NeedsSpilling` where it would need more than the outer loops' state spilled).
    Every attempt allocates in place; a failed one is undone, leaving `function` as it was
    (the same ops and values) for the next."""
    free = copy_arguments_at_entry(function, xlen)
    widen_parallel_moves(function, xlen)
    region_dce(function.body)  # e.g. loop steps that became immediates
    taken = taken_registers(function, free)
    budget = len(set(INTEGER_REGISTERS[:registers]) - taken)
    pressure = _Pressure(function, budget)
    if not pressure.certainly_short():
        try:
            # first without spilling: the pressure model holds a loop's carried registers for its
            # whole body, loop_allocation.py frees them between uses (the model may overcount)
            allocate(function, registers, taken)
            return
        except OutOfRegisters:
            pass
    # which nests crowd the function, asked before the spiller changes it
    crowded = None if spill else crowded_nests(pressure.points)
    spiller = _Spiller(function, xlen)
    # first the state of outer loops around the inner loops that run out (a store and a reload
    # per outer iteration: `loop_state_spilling.py`); it is not what `spill=False` refuses
    for _ in range(LOOP_STATE_ROUNDS):
        if not spiller.spill_loop_state(budget, pressure):
            break
        pressure = _Pressure(function, budget)  # the function changed
        if pressure.certainly_short():
            continue  # no try: the next round starts from this pressure
        if spiller.allocate(registers, taken):
            return
    if not spill:
        raise NeedsSpilling(f"riscv: @{function.sym_name.data} needs spilling", crowded)
    while budget > 0:
        spiller.relieve(budget)
        if spiller.allocate(registers, taken):
            return
        budget -= 1
    raise RegisterAllocationError(f"riscv: @{function.sym_name.data} does not fit {registers} registers")


@dataclass(frozen=True)
class BitfoldRiscvAllocateRegistersPass(ModulePass):
    """Registers for every value, spilling when needed (module docstring). Option `registers`:
    how many of t0..t6, a0..a7, s0..s11 (in that order) are allocatable, 1 to all 27."""

    name = "bitfold-riscv-allocate-registers"

    xlen: int = 64
    registers: int = len(INTEGER_REGISTERS)
    spill: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 1 <= self.registers <= len(INTEGER_REGISTERS):
            raise RegisterAllocationError(f"riscv: registers={self.registers}: 1 to {len(INTEGER_REGISTERS)}")
        for function in [f for f in op.walk() if isinstance(f, riscv_func.FuncOp) and f.body.blocks]:
            allocate_function(function, self.xlen, self.registers, self.spill)
