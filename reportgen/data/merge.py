"""Choose the current record of each case and derive the quantities pages show.

A site is built for one publication machine (see ``publication_machine``): only that
machine's runs are merged, and of those only the runs of its most thorough profile class
(standard/full when it has any, else quick smoke tests), so a page never mixes machines and
a quick run never mixes with standard figures.  Current = for each case id, the record of the
newest run of the most thorough profile that measured it (full > standard > quick), a case being
what its id names in any spelling (cases.canonical_id).
Historical values are never touched here: they stay strings in archive.Table.
"""
from dataclasses import dataclass, field, replace

from study import cases, identity, work
from reportgen.data import frame, runfacts
from reportgen.data.frame import fastest  # noqa: F401 - the pages choose through merge.fastest
from reportgen.errors import ReportError

PROFILE_RANK = {"quick": 0, "standard": 1, "full": 2}
SMOKE = "quick"   # the profile whose records are smoke tests: never findings, never beside standard points


@dataclass
class Current:
    """A record chosen to stand for its case, with the run it came from."""

    record: dict
    run: object   # load.Run
    jumped: bool = False   # its median jumped against an earlier run of the same code (pages.history.flagged)

    @property
    def ok(self):
        return self.record["status"] == "ok"

    def stat(self, name):
        return self.record["stats"][name]

    @property
    def machine(self):
        return machine_of(self.run) if self.run is not None else None

    def blame(self, field):
        """Where a fact a page shows came from: the record's file, its id and the field."""
        return f"{self.run.path / 'records.jsonl'}: {self.record['id']}: {field}"

    def gflops(self, stat="p50"):
        """flops per call ÷ time per call (a slower time gives fewer GFLOPS); the flops are the work
        the case defines (study.work), never a number the record merely states."""
        return work.flops_per_call(self.record) / self.stat(stat) / 1e9


def current_records(runs, jumped=frozenset(), held=frozenset()):
    """{case id: Current} over all runs (a frame.Records: it keeps its frame, see frame.of).
    ``jumped``: {(run id, record id)} of the records flagged as jumps (pages.history.flagged); ``held``: those
    of a run that left out cases the same code measured before (pages.history.held_back), never current."""
    chosen = {}
    for run in runs:
        # newest by the run id's checked start (runfacts.order), never by finished_at: a run may claim to
        # have finished months after it started, and would stay current over every run in between
        rank = (PROFILE_RANK.get(run.manifest["profile"], -1), runfacts.order_key(run))
        for rec in run.records:
            # one case, one current record: two spellings of its id (fields in another order, an optional
            # field left out) were two "current" records, and the lookups by case field took the older
            key = cases.canonical_id(rec["id"], rec["case"])
            best = chosen.get(key)
            if best is None or rank >= best[0]:
                # keyed as history flags it: the run that measured the record (a reused one names it)
                flagged = (rec["run_id"], rec["id"]) in jumped
                if flagged and (rec["status"] != "ok" or (rec["run_id"], rec["id"]) in held) and best is not None \
                        and best[1].ok:
                    # the same code failed a case it measured before (pages.history): its last measurement
                    # stays current, flagged, instead of leaving the pages' choices without it
                    chosen[key] = (best[0], replace(best[1], jumped=True))
                    continue
                chosen[key] = (rank, Current(rec, run, flagged))
    return frame.Records((cur.record["id"], cur) for _rank, cur in chosen.values())


def family(current, name):
    """The current records of one experiment family, {case id: Current} in record order."""
    return frame.as_dict(frame.select(current, name))


def latest_environment(runs, currents):
    """Environment of the newest run that contributed a current record (runs of one machine)."""
    used = {c.run.run_id for c in currents.values()}
    candidates = [r for r in runs if r.run_id in used] or runs
    return candidates[-1].manifest["environment"] if candidates else None


def peak(current, dtype, threads, isa=None):
    """The measured peak record for dtype and thread count, or None.

    ``isa``: the peak of the ISA a kernel actually used (see identity.kernel_isa), so a kernel is
    never divided by the peak of wider vectors it did not use; without it (or when that ISA's peak
    was not measured at all; None when it was and failed), the fastest measured ISA (a share of it is never flattering; a record of an ISA
    the machine's loops do not measure is refused: study.work.peak_problems).
    """
    exact = isa_peak(current, dtype, threads, isa) if isa is not None else None
    if exact is not None:
        return exact
    if isa is not None and not frame.select(current, "machine_peak", dtype=dtype, threads=threads, isa=isa).empty:
        # that ISA's peak was measured and failed: no share at all, never one of a narrower peak (a run
        # failing the avx512 loop put AVX-512 kernels at 184 % of the AVX2 peak)
        return None
    peaks = frame.currents(_peaks(current, dtype=dtype, threads=threads))
    return max(peaks, key=lambda cur: cur.gflops("p50")) if peaks else None   # the first of equal peaks


def isa_peak(current, dtype, threads, isa):
    """The measured peak record of exactly one ISA (machine_peak/.../isa=...), or None."""
    return frame.first(_peaks(current, dtype=dtype, threads=threads, isa=isa))


def isa_peak_failed(current, dtype, threads, isa):
    """The current peak record of exactly one ISA when it failed (a timeout, an error), or None: a share that
    rests on it says so, never 'no peak was measured' (a peak forged to time out read as never measured,
    its above-peak warning and the peak goal gone)."""
    rows = frame.select(current, "machine_peak", dtype=dtype, threads=threads, isa=isa) if isa is not None else None
    return None if rows is None else frame.first(rows[rows["status"] != "ok"])


def _peaks(current, **case):
    rows = frame.select(current, "machine_peak", **case)
    return rows[rows["status"] == "ok"]


def machine_of(run):
    """The hardware id of a run (one rule for old and new runs; load.Run computes it once)."""
    machine = getattr(run, "machine", None)
    return machine if machine is not None else identity.machine_id(run.manifest["environment"])


def is_smoke(run):
    return run.manifest["profile"] == SMOKE


@dataclass
class Machine:
    """One machine the study has runs from."""

    id: str
    runs: list = field(default_factory=list)   # oldest first, every profile

    @property
    def env(self):
        """Environment of its newest run of the published profile class."""
        return published_runs(self.runs)[-1].manifest["environment"]

    @property
    def thorough_cases(self):
        """Cases measured ok by its standard/full runs, each once whatever its spelling (cases.canonical_id)."""
        return {cases.canonical_id(r["id"], r.get("case")) for run in self.runs if not is_smoke(run)
                for r in run.records if r["status"] == "ok"}

    @property
    def thorough_families(self):
        """Experiment families with an ok record from its standard/full runs."""
        return {case.split("/", 1)[0] for case in self.thorough_cases}

    @property
    def newest_thorough(self):
        """The place (runfacts.order_key: the start its id names) of its newest standard/full run, () when
        it has none; never finished_at, which a run may claim months after it started."""
        return max((runfacts.order_key(run) for run in self.runs if not is_smoke(run)), default=())

    @property
    def newest_key(self):
        """The place of its newest run among all runs, by the start its id names (for ordering machines)."""
        return max(runfacts.order_key(run) for run in self.runs)

    @property
    def smoke_only(self):
        return all(is_smoke(run) for run in self.runs)

    @property
    def newest(self):
        return max(run.manifest["finished_at"] for run in self.runs)


def machines(runs):
    """{machine id: Machine}, in order of first appearance."""
    out = {}
    for run in runs:
        out.setdefault(machine_of(run), Machine(machine_of(run))).runs.append(run)
    return out


DEFAULT_RULE = ("among the machines whose standard/full runs measured at least half as many cases ok as the "
                "machine that measured the most, the one whose runs measured the most experiment families ok; "
                "among those, the one with the newest standard/full run")
"""Families, not cases: a family that measures more variants on one machine (or fewer, after a
change such as timing the NumPy peer once per shape) must not decide which machine is published;
the newest complete machine carries the current code's figures.  Cases only decide which machines
take part: a new machine id (a copied environment with one field changed) that ran one case of each
family tied the real machine on families and won on its newer runs, taking over the whole site."""


BY_OPTION = "chosen with --machine"
PINNED = "pinned in mkdocs.yml (plugins: reportgen: machine)"
"""How a publication machine was chosen when not by DEFAULT_RULE: `build --machine ID`, or the
committed mkdocs.yml.  The published site's machine is pinned there, so that a change of machine is a
line a review sees: by the default rule alone, a whole study forged for a new machine id (complete,
newer, consistent) took the site over with nothing in the diff but run folders."""


def publication_machine(runs, wanted=None, how=BY_OPTION):
    """(machine id, reason) of the machine a site is built for.

    ``wanted`` (``reportgen build --machine``, or mkdocs.yml's pin when ``how`` is PINNED) may be a
    full id or a unique prefix of one; otherwise DEFAULT_RULE picks it.  None when there are no runs.
    A pinned machine other than the default rule's says which machine the rule would publish.
    """
    found = machines(runs)
    if wanted:
        matches = [m for m in found if m.startswith(wanted)]
        if len(matches) != 1:
            known = ", ".join(f"{m} ({identity.cpu_name(found[m].env)})" for m in found) or "none"
            where = "--machine" if how == BY_OPTION else "mkdocs.yml: plugins: reportgen: machine"
            raise ReportError(f"{where}: {wanted!r:.40} {'matches no' if not matches else 'is ambiguous among the'} "
                              f"machines with runs; known: {known}")
        if how == PINNED:
            default, _why = publication_machine(runs)
            if default != matches[0]:
                return matches[0], (f"{PINNED}; the default rule would publish {default} "
                                    f"({identity.cpu_name(found[default].env)}): change the pin to publish it")
        return matches[0], how
    if not found:
        return None, "no runs"
    most = max(len(m.thorough_cases) for m in found.values())
    best = max((m for m in found.values() if 2 * len(m.thorough_cases) >= most),
               key=lambda m: (len(m.thorough_families), m.newest_thorough))
    return best.id, (f"default rule: {DEFAULT_RULE}; {len(best.thorough_families)} families, "
                     f"{len(best.thorough_cases)} cases"
                     + (" (smoke tests only)" if best.smoke_only else ""))


def published_runs(runs):
    """The runs of one machine that a site merges: its standard/full runs, or its quick ones if that is all."""
    thorough = [run for run in runs if not is_smoke(run)]
    return thorough or list(runs)


def runs_of(runs, machine_id):
    """The published runs of one machine (oldest first)."""
    return published_runs([run for run in runs if machine_of(run) == machine_id])


def summaries(runs, chosen=None):
    """One dict per machine with runs: id, CPU, ISA, cores, memory, runs per profile, families
    measured by its standard/full runs, newest run; publication machine (``chosen``, else the default
    rule's) first, then newest first."""
    found = machines(runs)
    chosen = chosen or publication_machine(runs)[0]
    order = sorted(sorted(found, key=lambda m: found[m].newest_key, reverse=True), key=lambda m: m != chosen)
    out = []
    for mid in order:
        m = found[mid]
        env = m.env
        profiles = {}
        for run in m.runs:
            profiles[run.manifest["profile"]] = profiles.get(run.manifest["profile"], 0) + 1
        out.append({"id": mid, "cpu": identity.cpu_name(env), "isa": identity.isa_level(env),
                    "cores": env.get("logical_cores"), "memory_gib": identity.memory_gib(env),
                    "vm": bool(env.get("hypervisor")), "runs": dict(sorted(profiles.items())),
                    "families": sorted(m.thorough_families), "newest": m.newest, "published": mid == chosen})
    return out

