"""Ratios of two records: a figure printed from two records of one machine (a speed-up, a ratio to a peer,
a share of a peak) is held to history.JUMP as one record's median is.

Each record is compared with its own history (history.all_jumps); a ratio of two is not a record's, and two
records each moved under JUMP, one up and one down, moved their ratio past it unflagged (the INT8 speed-up
3.51x -> 11.36x, FP32 x1.8 and INT8 x1/1.8, over changed code).  Every pair of current records of one family
on one machine is followed over the runs that measured both (ok, measured there, neither record flagged on its
own), as unconfirmed follows a record's level: a ratio moved by JUMP or more from the pair's level is a jump of
the same code when git shows no change between the two runs, else a new level, which only a run a maintainer
accepted (runlists.confirming) makes the pair's level.  A figure resting on both records of a flagged pair is
flagged (render.figures.FigureBook); the history page lists the pairs."""
import math

from reportgen.data import merge
from study import cases, stats

JUMPED, NEW_LEVEL = "jumped", "new level"


class Pair:
    """One flagged pair: its two current records ((run id, record id) each), how, and the ratios compared."""

    def __init__(self, kind, a, b, level_run, level_ratio, run, ratio):
        self.kind, self.a, self.b = kind, a, b
        self.level_run, self.level_ratio, self.run, self.ratio = level_run, level_ratio, run, ratio

    @property
    def same_code(self):
        """A jump of the same code (flagged as one), else a new level not yet confirmed."""
        return self.kind == JUMPED

    @property
    def keys(self):
        return frozenset((self.a, self.b))


def _p50(rec):
    value = (rec.get("stats") or {}).get("p50") if isinstance(rec.get("stats"), dict) else None
    return value if stats.is_number(value) and value > 0 and math.isfinite(value) else None


def _moved(ratio, level, jump):
    return not 1 / jump < ratio / level < jump


ACROSS = ("machine_peak",)
"""Families whose records the pages divide other families' by (a share of the measured peak: gemm_hand's, gemm_tvm's,
numpy_gemm's, e2e_rules' convolutions): their pairs with every family are followed, the others' within a family.  A
page printing a ratio of two families' records of one machine that this does not cover stops the build (followed:
FigureBook.unfollowed, checked at the build's end): a hand-ladder share moved 2.56x, gemm_hand x1.6 and the peak
x1/1.6, while only one family's pairs were followed."""


def followed(family_a, family_b):
    """Whether flagged_pairs follows the pairs of records of these two families (of one machine)."""
    return family_a == family_b or family_a in ACROSS or family_b in ACROSS


def flagged_pairs(runs, current_by_machine, flagged, code_changed, confirming, jump):
    """[Pair] of the pairs of current records (``current_by_machine``: {machine: {case id: Current}}) whose
    ratio is flagged, of one family or with one of ACROSS.  ``flagged``: {(run id, record id)} flagged on their own
    (history.flagged | unconfirmed): a run where either record is flagged is no step of the pair (the record's own
    flag tells it)."""
    out = []
    for machine, current in sorted(current_by_machine.items()):
        mine = merge.runs_of(runs, machine)
        index = [(run, {cases.canonical_id(r["id"], r.get("case")): r for r in run.records
                        if r["reused_from"] is None and r["status"] == "ok" and _p50(r) is not None
                        and (run.run_id, r["id"]) not in flagged}) for run in mine]
        members = sorted(((cases.canonical_id(cur.record["id"], cur.record.get("case")), cur)
                          for cur in current.values()
                          if cur.ok and _p50(cur.record) is not None and not cur.jumped
                          and (cur.record["run_id"], cur.record["id"]) not in flagged), key=lambda m: m[0])
        held = {}   # case -> [position in index] of the runs measuring it
        for i, (_run, recs) in enumerate(index):
            for key, _cur in members:
                if key in recs:
                    held.setdefault(key, []).append(i)
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                families = (members[x][1].record.get("experiment"), members[y][1].record.get("experiment"))
                if followed(*families):
                    found = _follow(index, held, members[x], members[y], families, code_changed, confirming, jump)
                    if found is not None:
                        out.append(found)
    return out


def _follow(index, held, first, second, families, code_changed, confirming, jump):
    """The Pair when the two current records' ratio stands flagged after the runs measuring both, else None."""
    (ka, ca), (kb, cb) = first, second
    both = sorted(set(held.get(ka, ())) & set(held.get(kb, ())))
    steps = [(index[i][0], _p50(index[i][1][ka]) / _p50(index[i][1][kb]), index[i][0].run_id in confirming)
             for i in both]
    now = {ca.record["run_id"], cb.record["run_id"]}
    if not (len(now) == 1 and both and index[both[-1]][0].run_id in now):
        # the current records come from two runs: their ratio, as the pages print it, is one more step
        later = max((ca.run, cb.run), key=lambda run: _position(index, run))
        steps.append((later, _p50(ca.record) / _p50(cb.record), False))
    level = pending = state = None   # (ratio, run) of the pair's level, of a new level not yet confirmed
    for run, ratio, accepted in steps:
        if level is None:
            level = (ratio, run)
            continue
        ref = pending or level
        if not _moved(ratio, ref[0], jump):
            if pending is not None and accepted:
                level, pending = pending, None
            state = (NEW_LEVEL, level) if pending is not None else None
        elif code_changed is not None and not any(code_changed(ref[1], run, family) for family in set(families)):
            state = (JUMPED, ref)   # the same code: the pair's level stays
        elif accepted:
            level, pending, state = (ratio, run), None, None
        else:
            pending, state = (ratio, run), (NEW_LEVEL, level)
    if state is None:
        return None
    kind, (ref_ratio, ref_run) = state
    return Pair(kind, (ca.record["run_id"], ca.record["id"]), (cb.record["run_id"], cb.record["id"]),
                ref_run.run_id, ref_ratio, steps[-1][0].run_id, steps[-1][1])


def _position(index, run):
    """Where a run stands among the machine's runs (-1: not among them)."""
    return next((i for i, (held_run, _recs) in enumerate(index) if held_run.run_id == run.run_id), -1)
