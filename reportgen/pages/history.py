"""The runs over time: every run listed, consecutive runs on one machine compared."""
import html
import math

from reportgen.data import claims, compare, merge
from reportgen.render import comparable
from study import cases, identity, stats, work
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown
from reportgen.data.words import W

VERDICT_ZH = {"better": W("history.verdict_zh.better"), "worse": W("history.verdict_zh.worse"),
              "same": W("history.verdict_zh.same"), "noisy": W("history.verdict_zh.noisy"),
              "too_few": W("history.verdict_zh.too_few"), "not_comparable": W("history.verdict_zh.not_comparable")}


def runs_table(runs, data_prefix, current):
    """Every run of every machine (``current``: the site's records, for the comparability note)."""
    lines = []
    for run in reversed(runs):
        m, env = run.manifest, run.manifest["environment"]
        fams = W("common.punct.comma").join(W("history.runs_table.family_status", name=_esc(name), status=_esc(e['status']), records=_esc(e['records'])) for name, e in m["experiments"].items())
        blas = "; ".join(str(b.get("architecture")) for b in env["blas"])
        lines.append([f'<a href="{html.escape(data_prefix)}/runs/{html.escape(run.run_id)}/run.json">'
                      f"{html.escape(run.run_id)}</a>", _esc(m["profile"]), _esc(m["finished_at"]),
                      _esc(merge.machine_of(run)), _esc(W("history.runs_table.machine_cpu", cpu_name=identity.cpu_name(env), isa_level=identity.isa_level(env))), _esc(env["tvm_version"]), _esc(blas),
                      _esc(m["git"]["commit"][:10] + (W("history.runs_table.dirty_mark") if m["git"]["dirty"] else "")), fams])
    table = markdown([W("history.runs_table.head_run"), W("history.runs_table.head_profile"), W("history.runs_table.head_finished"), W("history.runs_table.head_machine"), "CPU", "TVM", W("history.runs_table.head_blas"), W("history.runs_table.head_commit"), W("history.runs_table.head_families")], lines)
    return table + "\n\n" + comparability(current)


JUMP = 2.0
"""A median that changes by this factor or more between two runs of one machine whose record says
the code and environment were the same (equal fingerprint) is not a speed-up: it is flagged."""


def jumps(runs, changed=False, code_changed=None, found=None):
    """(case id, earlier run, later run, later ÷ earlier statistic) for every such jump, per machine:
    as asv flags a regression, a forged or broken run is shown, never published silently.

    ``changed=True``: the jumps between records that claim different fingerprints instead, over code
    the repository shows changed.  A fingerprint, a dirty flag and an environment are a run's own
    claims: ``code_changed(run a, run b)`` (data.runfacts.code_changed) asks git, and a jump over code
    it does not show changed is a jump of the same code whatever the records claim (another 64 hex
    digits, a dirty flag or one edited environment field took the flag off a 10x faster figure).
    Without ``code_changed`` (no repository) the fingerprints' claim is taken.

    ``found``: all_jumps(runs, code_changed) when the caller has it (a build finds them once)."""
    same, over_changed = split(all_jumps(runs, code_changed) if found is None else found)
    return [(cid, a, b, ratio) for cid, a, b, ratio, _changed, _stat in (over_changed if changed else same)]


STATS = ("p50", "p95", "p99", "mean", "min", "max")
"""The statistics the pages show of a record (the median, the tail, the mean and extremes the pitfalls
page quotes): a jump of any of them is a jump (one sample 1000x slower moved the mean 16x under a
steady median and tail, and became the page's example)."""


SAMPLES = "samples"
"""The number of samples a record's verdicts and intervals rest on: the harness takes as many as the
profile's repeat and budget allow at the speed measured, so the same code at the same speed takes as
many (3 samples padded to 30 turned a verdict from 'too few samples, p = 0.1' to 'holds, p = 3e-11')."""
WORK = "flops/call"
"""The work of one call a record's GFLOPS divide by its time (study.work: the peak loop's iterations and
accumulators are the record's own claims): a peak of the same timings claiming 5x the accumulators
was published 5x higher, every utilisation divided by as much."""


PAIRED = ("ratio", "peer_p50_s")
"""A paired timing's figures the pages print (extra.paired_peer: the ratio to its peer and the peer's median), held
to JUMP as the median is: the peer's samples within 2x of its own record and that record within 2x of its last
moved the ratio 3.6x, and turned a verdict from par (0.99x) to ahead (0.27x)."""


PAIRED_GONE = "paired_peer (came or went)"
"""How a record names the jump of a paired timing that one of the two records lacks: deleted, the pages fell back
to p50 / p50, which nothing compared (0.99x read 0.36x, still said to be paired block by block)."""


def _paired(rec, name):
    pp = (rec.get("extra") or {}).get("paired_peer") if isinstance(rec.get("extra"), dict) else None
    return pp.get(name) if isinstance(pp, dict) else None


WARMUP = "warmup"
"""The warm-up calls a record says it made before its samples: the profile's, the same for every run of it
(a run saying 'no warm-up, one call a sample' for 3 and 16 384 printed that method beside the figure)."""
NUMBER = "calls/sample"
NUMBER_JUMP = 256.0
"""The factor a record's calls per sample jump at: the harness calibrates them to the speed it meets, and a
NumPy peer of the same code took 128 calls a sample in one run and one in the next (the committed runs)."""


def _method(rec, earlier):
    """(ratio, name) of the timing method when it moved between two runs of one profile: the warm-up
    changed, or the calls per sample by NUMBER_JUMP; else None."""
    a, b = earlier.get("warmup"), rec.get("warmup")
    if a != b:
        return (b / a if stats.is_number(a) and stats.is_number(b) and a else math.inf), WARMUP
    a, b = earlier.get("number"), rec.get("number")
    if stats.is_number(a) and stats.is_number(b) and a > 0 and b > 0 and not 1 / NUMBER_JUMP < b / a < NUMBER_JUMP:
        return b / a, NUMBER
    return None


def _jump(rec, earlier, skip=frozenset(), memo=None, same_profile=False):
    """(ratio, statistic) of the first of STATS, or of the work per call, that moved by JUMP or more from
    ``earlier``, or of another claim the record states (data.claims: scores, errors, sizes, counts), else
    None.  ``skip``: the claim keys the two runs' profiles change (data.profiles.claims_across; empty for
    one profile), or None when the profiles differ in what the claims depend on: times only then.  Between
    runs of one profile (``same_profile``) the timing method is compared too (_method)."""
    pairs = [(stat, (earlier.get("stats") or {}).get(stat), (rec.get("stats") or {}).get(stat)) for stat in STATS]
    pairs.append((WORK, work.flops_per_call(earlier), work.flops_per_call(rec)))
    pairs.append((SAMPLES, len(earlier.get("samples") or ()), len(rec.get("samples") or ())))
    pairs += [(f"paired_peer.{name}", _paired(earlier, name), _paired(rec, name)) for name in PAIRED]
    if (_paired(earlier, "ratio") is None) != (_paired(rec, "ratio") is None):
        return (math.inf if _paired(rec, "ratio") is not None else 0.0), PAIRED_GONE
    for stat, a, b in pairs:
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a > 0 and b > 0:
            ratio = b / a
            if ratio >= JUMP or ratio <= 1 / JUMP:
                return ratio, stat
    moved = _method(rec, earlier) if same_profile else None
    if moved is not None:
        return moved
    return claims.jump(earlier, rec, JUMP, skip, memo) if skip is not None else None


def all_jumps(runs, code_changed=None, across=None, memo=None):
    """(case id, earlier run, later run, ratio, whether the code changed between them as far as told,
    the statistic that jumped), over ``runs`` in order.

    Each record is compared with the last trusted record of its case on its machine (of any profile: a
    forged quick run is flagged too) and with a baseline, the first of them.  A jump over code git
    shows changed starts a new level: the record becomes the baseline.
    A jump of the same code does not: the record is flagged and neither the baseline nor the last
    trusted record moves to it, so a second forged run at the forged level is flagged too (it was
    compared with the first, and passed), a quick run cannot carry the level over to a standard one,
    and a staircase of steps each under JUMP (1.0, 0.55, 0.3 ms) is flagged where it crosses JUMP
    against the baseline.  Every statistic a page shows is compared (STATS): a tail moved tenfold
    under an unchanged median is a jump.  The claims (data.claims) are compared between runs of one
    profile, and between runs of two where ``across`` (data.profiles.claims_across) says which claims the
    profiles change: the first 'full' run of a machine is held to its 'standard' runs.  ``memo``: the records'
    claims (data.claims), shared with unconfirmed, which compares the same records again."""
    out, trusted, base, seen, measured, kept = [], {}, {}, {}, {}, {}
    memo = {} if memo is None else memo
    for run in runs:
        machine, profile = merge.machine_of(run), run.manifest.get("profile")
        ran, left_out = {}, _left_out(run, machine, profile, measured, code_changed)
        out.extend((cid, earlier.run_id, run.run_id, 0.0, False, GONE)
                   for _family, (earlier, missing) in sorted(left_out.items()) for cid in sorted(missing))
        for rec in run.records:
            key = (machine, cases.canonical_id(rec["id"], rec.get("case")))   # one case in every spelling
            family = rec.get("experiment")
            if rec["reused_from"] is not None:
                continue
            if family in left_out and trusted.get(key) is not None:   # neither trusted nor a baseline: held back
                out.append((rec["id"], trusted[key][0], run.run_id, 0.0, False, INCOMPLETE))
                continue
            ran.setdefault(family, set()).add(rec["fingerprint"])
            if rec["status"] != "ok":   # a failure, a skip: nothing measured, the case stays unseen
                out.extend(_failed(rec, run, trusted.get(key), code_changed))
                continue
            # unseen: never measured ok and trusted in this profile on this machine (a forged failure first, or a
            # forged quick run, made the case known, and a forged ok of it was compared with nothing)
            if profile not in seen.get(key, ()) and (family, machine, profile) in measured:
                # a case the same code did not measure on this machine before: a forged one has no history
                # to be compared with, and took a finding's smallest size
                earlier, fingerprints, _ids = measured[(family, machine, profile)]
                changed = _code_changed(rec["fingerprint"] not in fingerprints, earlier, run, family, code_changed)
                out.append((rec["id"], earlier.run_id, run.run_id, math.inf, changed, NEW_CASE))
                if not changed:
                    continue   # flagged, and no baseline: the next run that measures it again is flagged too
                # new code measures new cases: a new level (unconfirmed), and the case's baseline from here on
            seen.setdefault(key, set()).add(profile)
            entry, before, origin = (run.run_id, rec, run), trusted.get(key), base.get(key)
            hit = None
            for earlier in [e for e in (before, origin) if e is not None][:1 if origin is before else 2]:
                before_profile = earlier[2].manifest.get("profile")
                moved = _jump(rec, earlier[1], frozenset() if before_profile == profile else
                              across(family, before_profile, profile) if across else None, memo,
                              same_profile=before_profile == profile)
                if moved is not None:
                    changed = _code_changed(earlier[1]["fingerprint"] != rec["fingerprint"], earlier[2], run, family,
                                            code_changed)
                    hit = (earlier[0], *moved, changed)
                    break
            if hit is not None and hit[3]:
                hit = _same_code_hit(rec, run, family, kept.get(key, ()), code_changed, memo) or hit
            if hit is None and before is not None:   # within JUMP of the last: within the case's own range too?
                outside = _outside_range(rec, kept.get(key, ()), memo)
                if outside is not None and not _code_changed(before[1]["fingerprint"] != rec["fingerprint"], before[2],
                                                             run, family, code_changed):
                    hit = (before[0], *outside, False)
            if hit is None:
                base.setdefault(key, entry)
                trusted[key] = entry
                kept.setdefault(key, []).append(entry)
                continue
            earlier_run, ratio, stat, changed = hit
            out.append((rec["id"], earlier_run, run.run_id, ratio, changed, stat))
            if changed:   # the code changed: the record is trusted; a new level is the baseline from here on
                trusted[key] = entry
                kept.setdefault(key, []).append(entry)
                if origin is None or _level_moved(rec, origin[1], memo):
                    # not a tail or a text alone: one slow sample, then two runs each 0.55x, published 0.3x unflagged
                    base[key] = entry
        finished = run.manifest.get("experiments") or {}   # a family stopped or failed midway measured fewer cases
        measured.update({(family, machine, profile): (run, fingerprints, _case_ids(run, family))
                         for family, fingerprints in ran.items() if (finished.get(family) or {}).get("status") == "ok"
                         and family not in left_out})
    return out


RANGE = 1.25
RANGE_RUNS = 3
RANGE_STAT = "p50 (outside the case's range)"
"""A median of the same code as the last run that lies beyond RANGE of the range of every earlier trusted median of
its case on the machine (at least RANGE_RUNS of them, over any code) is a jump too, as asv holds a benchmark to its
history: TensorFlow's ResNet-18 at 0.55x, under JUMP, beside seven runs of 14.8-19.7 ms, was printed unflagged and
made the fastest engine.  The committed runs have no same-code median beyond it."""
SINGLE_RANGE = 8.0
"""The same for the single measurements no level holds (claims.NOISY: a first call, a compile, a one-call profile's
total; and claims.durations: a tuning's time, an import), wider (the paired ratio is held at RANGE, as a median): a first call of 9 s beside a 9 ms median, a profile total at 28x, a compile of 90 000 s turned the
pages' "dearest first call" and bottleneck shares unflagged.  The committed runs of one machine lie within 5.9x of
their case's earlier range (ORT's digits CNN's first call); a compile moved 65x there, by changed code."""


SEARCH_TIMES = ("tuning", "rules_tuning")
"""The searches whose wall time the pages print (e2e: the rule knobs' tuning in minutes): held to the range too."""


def _range_figures(rec, memo):
    """{statistic: (value, bound)} a record's figures are held to their case's range with: the median and the
    paired ratio at RANGE, the single measurements (claims.NOISY, claims.durations) at SINGLE_RANGE; kept in
    ``memo`` by the record's identity (each is read again beside every later record of its case)."""
    key = ("range", id(rec))
    if key not in memo:
        extra = rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
        found = {"p50": ((rec.get("stats") or {}).get("p50"), RANGE),
                 "paired_peer.ratio": (_paired(rec, "ratio"), RANGE)}   # a headline ratio, its samples' median
        found.update({f"extra.{name}": (extra.get(name), SINGLE_RANGE) for name in sorted(claims.NOISY)})
        found.update({".".join(map(str, path)): (value, SINGLE_RANGE) for path, value in claims.durations(rec).items()})
        for search in SEARCH_TIMES:   # a search's time, decided by its budget (claims.SEARCHED leaves it out)
            found[f"extra.{search}.seconds"] = ((extra.get(search) or {}).get("seconds")
                                                if isinstance(extra.get(search), dict) else None, SINGLE_RANGE)
        memo[key] = (rec, found)   # the record kept alive beside its id
    return memo[key][1]


def _outside_range(rec, kept, memo=None):
    """(ratio to the nearer end of its case's range, statistic) of the first of ``rec``'s figures (_range_figures)
    that lies beyond its bound of that range (``kept``: the trusted entries, at least RANGE_RUNS); else None."""
    memo = {} if memo is None else memo
    for name, (value, bound) in _range_figures(rec, memo).items():
        earlier = [v for v in (_range_figures(e[1], memo).get(name, (None,))[0] for e in kept)
                   if stats.is_number(v) and v > 0]
        if len(earlier) < RANGE_RUNS or not (stats.is_number(value) and value > 0):
            continue
        low, high = min(earlier), max(earlier)
        if not low / bound <= value <= high * bound:
            return (value / (low if value < low else high),
                    RANGE_STAT if name == "p50" else f"{name} (outside the case's range)")
    return None


def _same_code_hit(rec, run, family, kept, code_changed, memo):
    """A jump over changed code is still one of the same code when an earlier trusted record of the case was
    measured with the family's code as this run has it (git shows no change between the two commits): a run
    naming an older commit, its records new fingerprints, moved ResNet-18 0.4x as 'another code', unflagged,
    beside 13 runs of 1.49-1.87 s, one of them at that very commit.  The newest such record decides."""
    if code_changed is None:
        return None
    for earlier_run_id, earlier, earlier_run in reversed(kept):
        if code_changed(earlier_run, run, family):
            continue
        same_profile = earlier_run.manifest.get("profile") == run.manifest.get("profile")
        moved = _jump(rec, earlier, frozenset() if same_profile else None, memo, same_profile=same_profile)
        return (earlier_run_id, *moved, False) if moved is not None else None
    return None


def _code_changed(fingerprints_differ, earlier_run, run, family, code_changed):
    """Whether the code changed between two runs as far as told: the records claim other fingerprints and
    git shows a change of the family's code between the runs (or there is no repository to ask)."""
    return fingerprints_differ and (code_changed is None or code_changed(earlier_run, run, family))


FAILED = "status: "
"""How a jump of a case the same code measured before and failed now names its statistic."""
NEW_CASE = "new case"
"""The statistic named for a case the machine's earlier run of the family (same profile) did not measure."""


GONE, INCOMPLETE = "left out (the same code measured it before)", "held back (its run left out cases)"
"""A case the machine's earlier run of the family (same profile, same code) measured and a later run whose family
finished 'ok' did not hold at all, and each record of that later run of the family: a copy of the newest int8 run
with ten of its cases left out emptied the page's conclusion, its goal and its headline ratio (each pairs records
of one run), and nothing was flagged.  The run's records of that family stay out of the current figures
(merge.current_records, held_back); the earlier run's stay current, flagged."""


def _case_ids(run, family):
    return {cases.canonical_id(rec["id"], rec.get("case")) for rec in run.records if rec.get("experiment") == family}


def _left_out(run, machine, profile, measured, code_changed):
    """{family: (earlier run, case ids it left out)} of the families this run finished 'ok' while leaving out cases
    the machine's earlier run of the family (same profile) measured, where the code did not change between them."""
    finished, out = run.manifest.get("experiments") or {}, {}
    for family in {rec.get("experiment") for rec in run.records}:
        earlier = measured.get((family, machine, profile))
        if earlier is None or (finished.get(family) or {}).get("status") != "ok":
            continue
        missing = earlier[2] - _case_ids(run, family)
        prints = {rec.get("fingerprint") for rec in run.records if rec.get("experiment") == family}
        if missing and not _code_changed(not prints <= earlier[1], earlier[0], run, family, code_changed):
            out[family] = (earlier[0], missing)
    return out


def held_back(found):
    """{(run id, record id)} of the records all_jumps held back (INCOMPLETE): merge.current_records keeps them out."""
    return {(after, cid) for cid, _before, after, _ratio, _changed, stat in found if stat == INCOMPLETE}


def _failed(rec, run, before, code_changed):
    """A case the same code measured ok before and this run did not: a jump (a forged timeout of the
    smallest size took it out of a finding's choice, and the next size was named the smallest); the
    last measurement stays current, flagged (merge.current_records)."""
    if before is None:
        return []
    changed = _code_changed(before[1]["fingerprint"] != rec["fingerprint"], before[2], run, rec.get("experiment"),
                            code_changed)
    return [(rec["id"], before[0], run.run_id, 0.0, changed, f"{FAILED}ok \u2192 {rec['status']}")]


def split(found):
    """all_jumps' jumps as (those of the same code, those over code git shows changed)."""
    return [j for j in found if not j[4]], [j for j in found if j[4]]


def flagged(runs, code_changed=None, found=None):
    """{(run id, record id)} of every record whose median jumped against an earlier run of the same code
    on its machine: its figures carry a flag to the jumps list (render.figures.FigureBook)."""
    same, _changed = split(all_jumps(runs, code_changed) if found is None else found)
    # a failure of the same code leaves its last measurement current (merge.current_records): flagged too
    return {(after, cid) for cid, _before, after, *_rest in same} | {
        (before, cid) for cid, before, _after, _ratio, _changed, stat in same if stat.startswith(FAILED) or stat in (
            GONE, INCOMPLETE)}


LEVELS = ("p50", "mean")
"""The statistics that are a figure's level: the median every page prints, the mean the pitfalls page quotes."""


def _level_moved(rec, earlier, memo=None):
    """Whether a record moved its level from ``earlier`` (both of one case and machine): a statistic of LEVELS
    or a paired figure (PAIRED) by JUMP, any number, true/false or profile row a page may print (claims.level_jump: a share the pages
    print by more than claims.SCORE_JUMP, an error, a size, a label's share of a profile's time),
    or the threshold its own check is held to (a record said 1e300 and its error of 5.0 read as passed).
    A tail alone, a text or a model file's sha256 changes with the code: listed, no level."""
    if (_paired(earlier, "ratio") is None) != (_paired(rec, "ratio") is None):
        return True   # the paired timing came or went: the pages print another ratio, by another method
    for a, b in [tuple((r.get("stats") or {}).get(stat) for r in (earlier, rec)) for stat in LEVELS] + [
            (_paired(earlier, name), _paired(rec, name)) for name in PAIRED]:
        if stats.is_number(a) and stats.is_number(b) and a > 0 and b > 0 and not 1 / JUMP < b / a < JUMP:
            return True
    if (earlier.get("check") or {}).get("threshold") != (rec.get("check") or {}).get("threshold"):
        return True
    return claims.level_jump(earlier, rec, JUMP, memo) is not None


def unconfirmed(runs, code_changed=None, found=None, confirming=frozenset(), memo=None):
    """{(run id, record id)} of the records that stand on a new level not yet confirmed.  A new level: over code
    git shows changed, a case measured for the first time (NEW_CASE) or a level that moved (_level_moved).  It
    is flagged, and so is every later record of the case on the machine that repeats it, until a run of
    ``confirming`` (runlists.confirming: the runs a maintainer accepted; by default none) measures the case
    at that level; a later record that moves away from it ends it, unconfirmed.  A run naming any commit that
    touched the family's code published ResNet-18 0.4x as 'another code', unflagged; a second forged run at the
    forged run's commit 'confirmed' it, and a second one repeating it (or a plain copy of the newest run) took
    the flag off the current figure: the flag belongs to the level, not to the run that first showed it."""
    found = all_jumps(runs, code_changed) if found is None else found
    order = {run.run_id: i for i, run in enumerate(runs)}
    out, memo = set(), {} if memo is None else memo
    record = _own_record({})
    # the records whose own jump is listed, and whether over changed code (a level of its own) or not
    listed = {(after, cases.canonical_id(cid, None)): changed for cid, _before, after, _ratio, changed, _stat in found}

    for cid, before, after, _ratio, changed, stat in found:
        if not changed or after not in order or stat.startswith(FAILED):
            continue
        run = runs[order[after]]
        key = cases.canonical_id(cid, None)
        rec, earlier = record(run, key), record(runs[order[before]], key) if before in order else None
        if stat != NEW_CASE and stat not in LEVELS and not (rec and earlier and _level_moved(rec, earlier, memo)):
            continue
        chain, confirmed = [(after, cid)], False
        for later in runs[order[after] + 1:]:
            again = record(later, key) if merge.machine_of(later) == merge.machine_of(run) else None
            if again is None:
                continue
            moved = rec is not None and _level_moved(again, rec, memo)
            if moved and listed.get((later.run_id, key)):
                break   # moved away over changed code: a level of its own, flagged as it is
            if moved and (later.run_id, key) in listed:
                continue   # a jump of the same code, flagged as one: the level stands after it (a decoy ended it)
            if later.run_id in confirming and not moved:
                confirmed = True
                break
            chain.append((later.run_id, again["id"]))
        if not confirmed:
            out.update(chain)
    return out


def _own_record(index):
    """record(run, key): the run's own ok record of the case ``key`` (a canonical id), or None; each run's records
    indexed once in ``index``, when first asked (unconfirmed and first_levels ask again and again)."""
    def record(run, key):
        if run.run_id not in index:
            index[run.run_id] = {cases.canonical_id(r["id"], r.get("case")): r for r in run.records
                                 if r["reused_from"] is None and r["status"] == "ok"}
        return index[run.run_id].get(key)
    return record


def first_levels(runs, confirming=frozenset(), memo=None):
    """{(run id, record id)} of the first measurements of a case in a profile on a machine that no run of
    ``confirming`` holds: nothing earlier can be compared with them, so they stand on the run that made them alone
    (all_jumps marks a case new only where the same family, machine and profile measured before: a new machine id
    printed ResNet-18 at 0.07x unmarked, and a machine's first 'full' run added a batch-8 case 3.3x faster than one
    image, and errors 2300x higher).  A first measurement in a run a maintainer accepted is a level; one in any other
    run is flagged, and so is every later record of the profile on the machine that repeats it, until an accepted
    run measures the case at that level (as unconfirmed does for a level over changed code).  ``memo``: as
    unconfirmed's; the build flags the union of both."""
    out, first, memo, record = set(), {}, {} if memo is None else memo, _own_record({})
    for i, run in enumerate(runs):
        machine, profile = merge.machine_of(run), run.manifest.get("profile")
        for rec in run.records:
            key = cases.canonical_id(rec["id"], rec.get("case"))
            if rec["reused_from"] is not None or rec["status"] != "ok" or (machine, profile, key) in first:
                continue
            first[(machine, profile, key)] = i
            if run.run_id in confirming:
                continue
            chain, base = [(run.run_id, rec["id"])], record(run, key)   # rec, or the run's other spelling of it
            for later in runs[i + 1:]:
                if merge.machine_of(later) != machine or later.manifest.get("profile") != profile:
                    continue
                again = record(later, key)
                if again is None:
                    continue
                if base is not None and _level_moved(again, base, memo):
                    break   # moved away: a level of its own, which all_jumps and unconfirmed judge
                if later.run_id in confirming:
                    chain = []
                    break
                chain.append((later.run_id, again["id"]))
            out.update(chain)
    return out


SHOWN = ("history_jumps",)
"""The placeholders a build must run on some page, not only name: the jump list every flag links to was kept in
docs/history.md as '{% if false %}{{ history_jumps() }}{% endif %}', and the flags pointed at an empty section."""


def jumps_text(runs, code_changed=None, found=None, new_level=None, pairs=None, first=()):
    """The history page's jumps: those of the same code, then those over changed code with how many of them
    are unconfirmed new levels (``new_level``: unconfirmed(...) when the caller has it; a build finds it once),
    then the first measurements no accepted run holds (``first``: first_levels(...)), then the flagged ratios of
    two current records (``pairs``: pages.pairs.flagged_pairs)."""
    def moved(ratio, stat):
        if stat == NEW_CASE:
            return W("history.jumps.new_case")
        if stat.startswith(FAILED):
            return W("history.jumps.failed", status=_esc(stat.rsplit("\u2192", 1)[-1].strip()))
        shown = f"{ratio:.2f}" if math.isfinite(ratio) and ratio > 0 else "—"   # a claim that appeared, went or changed
        return f"{shown} ({_esc(stat)})"

    def table(found):
        rows = [[_code(cid), _esc(a), _esc(b), moved(ratio, stat)] for cid, a, b, ratio, _changed, stat in found]
        return markdown([W("history.jumps.head_case"), W("history.jumps.head_before"), W("history.jumps.head_after"),
                         "B ÷ A"], rows)
    every = all_jumps(runs, code_changed) if found is None else found
    found, changed = split(every)
    rules = {"factor": JUMP, "share": claims.SCORE_JUMP, "single": claims.SINGLE_SHOT_JUMP, "runs": RANGE_RUNS,
             "range": RANGE, "single_range": SINGLE_RANGE}
    text = (W("history.jumps.some", n=len(found), **rules) + "\n\n" + table(found) if found
            else W("history.jumps.none", **rules))
    if changed:
        text += "\n\n" + W("history.jumps.changed", n=len(changed), factor=JUMP, share=claims.SCORE_JUMP, single=claims.SINGLE_SHOT_JUMP,
                             unconfirmed=len(unconfirmed(runs, code_changed, every) if new_level is None else new_level))
        text += "\n\n" + table(changed)
    if first:
        text += "\n\n" + W("history.jumps.first", n=len(first)) + "\n\n" + table(
            [(cid, "\u2014", run_id, math.inf, True, NEW_CASE) for run_id, cid in sorted(first)])
    return text + ("" if pairs is None else "\n\n" + pairs_text(pairs))


def pairs_text(pairs):
    """The flagged ratios of two current records, each with the pair's level and the ratio now."""
    if not pairs:
        return W("history.jumps.pairs_none", factor=JUMP)
    rows = [[_code(p.a[1]), _code(p.b[1]), _esc(p.level_run), f"{p.level_ratio:.4g}", _esc(p.run), f"{p.ratio:.4g}",
             W("history.jumps.pair_same_code") if p.same_code else W("history.jumps.pair_new_level")] for p in pairs]
    heads = [W("history.jumps.pair_head_a"), W("history.jumps.pair_head_b"), W("history.jumps.pair_head_level"),
             W("history.jumps.pair_head_level_ratio"), W("history.jumps.pair_head_run"), W("history.jumps.pair_head_ratio"),
             W("history.jumps.pair_head_kind")]
    return W("history.jumps.pairs", n=len(pairs), factor=JUMP) + "\n\n" + markdown(heads, rows)


def excluded(runs):
    """The runs left out of every figure because their commit is not in the repository."""
    if not runs:
        return ""
    return "\n\n" + W("history.excluded.text", runs=W("common.punct.enumeration_comma").join(
        W("history.excluded.run", run=_code(run.run_id), commit=_code(str(run.manifest['git']['commit'])[:12]))
        for run in runs))


def comparability(current):
    """Per experiment family: do its current records come from one environment? (see comparable)"""
    notes = comparable.by_family(current)
    if not notes:
        return W("history.comparability.text")
    return "\n".join([W("history.comparability.mixed_intro"), ""]
                     + [W("history.comparability.family_note", code=_code(family), text=text) for family, text in notes.items()])


def comparisons(runs):
    """Each run against the previous run on the same machine that shares cases with it."""
    parts = []
    for i, run in enumerate(runs):
        machine = merge.machine_of(run)
        ids = {r["id"] for r in run.records}
        earlier = [r for r in runs[:i] if merge.machine_of(r) == machine
                   and ids & {x["id"] for x in r.records}]
        if not earlier:
            continue
        base = earlier[-1]
        rows = compare.compare_runs(base, run)
        counts = {}
        for row in rows:
            counts[row.verdict] = counts.get(row.verdict, 0) + 1
        env_diff = compare.environment_differences(base, run)
        lines = [[_esc(r.id), f"{r.median_a:.4g}", f"{r.median_b:.4g}", f"{r.ratio:.3f}", f"{r.p_value:.2g}",
                  VERDICT_ZH[r.verdict]] for r in rows if r.verdict in ("better", "worse")]
        summary = W("common.punct.comma").join(f"{VERDICT_ZH[k]} {v}" for k, v in sorted(counts.items()))
        text = [f"### {html.escape(base.run_id)} → {html.escape(run.run_id)}", "",
                W("history.comparisons.common_cases", rows=len(rows), summary=summary)]
        if env_diff:
            text.append(W("history.comparisons.env_differs") + W("common.punct.semicolon").join(
                W("history.comparisons.env_change", k=_esc(k), a=_esc(a), b=_esc(b)) for k, a, b in env_diff) + W("common.punct.period"))
        text += ["", markdown([W("history.comparisons.head_case"), W("history.comparisons.head_median_a"), W("history.comparisons.head_median_b"), "B ÷ A", W("history.comparisons.head_p_value"), W("history.comparisons.head_verdict")], lines) if lines
                 else W("history.comparisons.no_change", min_effect=compare.MIN_EFFECT), ""]
        parts.append("\n".join(text))
    return "\n".join(parts) or W("history.comparisons.nothing_comparable")


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "history_runs": lambda: runs_table(d.all_runs, b.data_prefix(), d.current) + excluded(d.excluded_runs),
        # the publication machine's runs: another machine's pairs are on its own site (build --machine),
        # and the page stays the same size as machines are added
        "history_compare": lambda: comparisons(merge.runs_of(d.all_runs, d.machine) if d.machine else []),
        "history_jumps": lambda: jumps_text(d.all_runs, d.code_changed, found=d.jumps, new_level=d.new_level,
                                            pairs=d.pairs, first=d.first_level),
    }
