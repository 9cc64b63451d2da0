"""Choose the current record of each case and derive the quantities pages show.

Current = for each case id, the record of the newest run of the most thorough
profile that measured it (full > standard > quick). Historical values are
never touched here: they stay strings in archive.Table.
"""
from dataclasses import dataclass

PROFILE_RANK = {"quick": 0, "standard": 1, "full": 2}


@dataclass
class Current:
    """A record chosen to stand for its case, with the run it came from."""

    record: dict
    run: object   # load.Run

    @property
    def ok(self):
        return self.record["status"] == "ok"

    def stat(self, name):
        return self.record["stats"][name]

    def gflops(self, stat="p50"):
        """flops per call ÷ time per call (a slower time gives fewer GFLOPS)."""
        return self.record["extra"]["flops_per_call"] / self.stat(stat) / 1e9


def current_records(runs):
    """{case id: Current} over all runs."""
    chosen = {}
    for run in runs:
        rank = (PROFILE_RANK.get(run.manifest["profile"], -1), run.manifest["finished_at"])
        for rec in run.records:
            best = chosen.get(rec["id"])
            if best is None or rank >= best[0]:
                chosen[rec["id"]] = (rank, Current(rec, run))
    return {key: cur for key, (_rank, cur) in chosen.items()}


def family(current, name):
    """The current records of one experiment family."""
    return {k: v for k, v in current.items() if v.record["experiment"] == name}


def latest_environment(runs, currents):
    """Environment of the newest run that contributed a current record."""
    used = {c.run.run_id for c in currents.values()}
    candidates = [r for r in runs if r.run_id in used] or runs
    return candidates[-1].manifest["environment"] if candidates else None


def peak(current, dtype, threads):
    """The widest-ISA measured peak record for dtype and thread count, or None."""
    best = None
    for cur in family(current, "machine_peak").values():
        case = cur.record["case"]
        if cur.ok and case["dtype"] == dtype and case["threads"] == threads:
            if best is None or cur.gflops("p50") > best.gflops("p50"):
                best = cur
    return best
