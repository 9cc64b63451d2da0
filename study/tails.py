"""How a GEMM ladder stage handles the tails of its shape: one text, decided by the shape and the tiles.

The experiment writes it into ``extra.schedule_params.tail_handling`` from these functions, and the report
decides it again from the record's own case and tiles (``problem``): the ladder's table prints it, and a
127x255x511 micro-kernel forged to read "M/N/K divisible" (none of 8, 32, 256 divides them) was printed.
"""
from __future__ import annotations

LADDER = ("baseline", "blocking", "vectorization", "loop_permutation", "packing", "write_cache", "parallel",
          "microkernel")
"""The ladder's stages in order (experiments.gemm.tvm_ladder.STAGES): from blocking on a stage tiles M, N, K."""

DEFAULT_LOOPS = "none (default loops)"
MICRO_PADDED = "pad M/N/K to MR/NR/KC multiples (A copied, B packed with zeros, C copied back)"
MICRO_DIVISIBLE = "M/N/K divisible"


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def fitted(k: int, tiles: dict[str, int]) -> dict[str, int]:
    """The cache blocks a micro-kernel of depth ``k`` is built with from the tiles its grid timed: KC evened out
    over the K blocks (less zero padding), a multiple of ``ku``; MC a multiple of MR.  The ladder's table prints
    them; the report holds a stage's schedule_params to them (reportgen.data.searchfacts)."""
    blocks = _cdiv(k, min(tiles["kc"], k))
    return {"kc": _cdiv(_cdiv(k, blocks), tiles["ku"]) * tiles["ku"],   # >= ku: K is padded up when smaller
            "mc": max(1, tiles["mc"] // tiles["mr"]) * tiles["mr"]}


def microkernel(m: int, n: int, k: int, mr: int, nr: int, kc: int) -> str:
    """The micro-kernel pads M, N, K up to MR, NR, KC multiples unless each divides."""
    return MICRO_PADDED if (m % mr or n % nr or k % kc) else MICRO_DIVISIBLE


def ladder(stage: str, m: int, n: int, k: int, tiles: dict[str, int]) -> str:
    """A stage before the micro-kernel: M and N padded to the block (bm, bn) unless they divide, K split
    by bk with a guard unless it divides; the baseline keeps the default loops."""
    if LADDER.index(stage) < LADDER.index("blocking"):
        return DEFAULT_LOOPS
    spatial = "pad M/N to tile multiples" if (m % tiles["bm"] or n % tiles["bn"]) else "M/N divisible"
    return f"{spatial}, {'guarded k split' if k % tiles['bk'] else 'K divisible'}"


def _positive(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def expected(case: dict, params: dict) -> str | None:
    """The text a record of ``case`` built with ``params`` (its schedule_params) holds; None where the
    record does not hold what decides it (another stage name, a shape or a tile that is no positive
    integer: other checks name those)."""
    stage = case.get("stage")
    shape = [case.get(axis) for axis in ("m", "n", "k")]
    if stage not in LADDER or not all(_positive(v) for v in shape):
        return None
    needs = (("mr", "nr", "kc") if stage == "microkernel"
             else ("bm", "bn", "bk") if LADDER.index(stage) >= LADDER.index("blocking") else ())
    if not all(_positive(params.get(name)) for name in needs):
        return None
    if stage == "microkernel":
        return microkernel(*shape, *(params[name] for name in needs))
    return ladder(stage, *shape, params)


def problem(case: dict, params) -> str | None:
    """One line when ``params`` (a record's schedule_params) holds a tail_handling other than the one its
    case and tiles decide, or one that is no text of 1 to 200 characters (the table prints it in a cell:
    null printed 'None', an object its repr)."""
    if not isinstance(params, dict) or "tail_handling" not in params:
        return None
    tail = params["tail_handling"]
    if not (isinstance(tail, str) and 0 < len(tail) <= 200):
        return f"extra.schedule_params.tail_handling: {tail!r:.40} is not a text of 1 to 200 characters"
    want = expected(case, params)
    if want is not None and tail != want:
        return (f"extra.schedule_params.tail_handling: {tail!r:.80}, but the shape and tiles the record holds "
                f"decide {want!r}")
    return None
