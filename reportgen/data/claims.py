"""Every number a record states beside its timings, compared with the machine's earlier run of the
same case, as its timings are (pages.history.all_jumps).

A record's extra and check hold what its run found besides the times: accuracy and agreement scores,
the largest errors against the reference, model and weight sizes, operator coverage, quantization
parameters, IR statistics, training results.  Most of them have no file to be read back from, so the
history is their evidence: the same code on the same inputs finds the same numbers (every committed
pair of runs of the same code on one machine agrees on every one of them, times and searches aside).
A forged weight size of 0.977 KiB for 2 MB, an agreement of 0.55 for 1.0, an error 1450x higher or an
error of exactly 0 were published with no flag while only the timings were compared.

Left out: what is measured in time (each leaf named like seconds, _s or _ms, and what is derived from
times: p-values, wins, ratios, process ids), and what a search decides (its tuning, knobs and campaign,
and the program it picked: codegen, assembly, tiles), which another run's search may change; those are
held to their evidence by reportgen.data.searchfacts.  A single measurement in seconds (an import, a
training) is compared at SINGLE_SHOT_JUMP, but for the NOISY ones.  The case fields a record's id does
not name (a group, a budget, a quantization method the pages print beside its figures) are claims too.
The errors of a record whose program a search scheduled move with the
schedule (floating-point sums reassociated), so they jump at SEARCH_ERROR_JUMP.
"""
import json
import math
import re
from collections import Counter

from reportgen.data import convs
from study import cases, stats, work

SHARE = re.compile(r"(accuracy|agree|exact|share)")
"""A leaf that is a share of an evaluation set (0..1): it jumps when it moves by more than SCORE_JUMP."""
SCORE_JUMP = 0.02
"""How far a share may move between runs of the same code: the same program on the same inputs scores
the same.  A share is not timed, so a ratio cannot tell: 0.61 forged to 0.99 moved it 1.6x and turned a
verdict, 0.992 forged to 0.90 failed a goal."""
ERRORS = ("max_abs_err", "max_rel_err")
SEARCH_ERROR_JUMP = 10.0
"""The factor the errors of a searched program jump at (its schedule changes with each search)."""
TIMED = re.compile(r"(seconds|_s|_ms|_us|^p_value|^tuned_wins|^ratio|pid)$")
"""A leaf measured in time or derived from times: its noise between runs is the timings' own (compile
times of the same code differ 500x), so it is no claim to compare."""
SEARCHED = frozenset({"tuning", "rules_tuning", "per_task_seconds", "campaign",
                      "failures", "retried", "allocation", "curve", "coverage", "network_check", "start_tiles",
                      "trials_done", "total_records", "paired_peer",
                      "timing_process", "environment", "op_profile", "kernel_profile", "node_profile"})
"""Subtrees a search decides, that describe the timing process, or whose rows are ordered by time (the
operator profiles): another run differs in them by design."""
SECONDS = re.compile(r"(seconds|_s|_ms|_us)$")
"""A timed leaf that is a duration: one measurement (an import, a training, a wall clock), not a sample."""
NOISY = frozenset({"compile_seconds", "cold_seconds", "op_profile_total_s"})
"""Single measurements whose spread between runs of the same code on one machine passes any factor a
forgery would need (compile 601x, cold start 10x, an operator profile's total 16x over the committed
runs): not compared, declared."""
SINGLE_SHOT_JUMP = 10.0
"""The factor another single measurement (import 3.4x, training, a wall clock at most 5.3x over the
committed runs) jumps at: an import of 43.8 ms forged to 4.38 s made compiling look cheap beside it."""
KERNEL_SUMS = frozenset({"untuned_kernel_seconds"})
"""Durations that are sums of kernel timings (the untuned variant C's kernels, whose total the e2e page prints):
timings, not single shots, so they jump at the timings' own factor, over changed code too (9.5x over changed
code was published unflagged, under SINGLE_SHOT_JUMP)."""
COMPILED = frozenset({"codegen", "asm", "dot_instructions", "schedule_params"})
"""Subtrees that describe the program compiled: the same code compiles the same program, so they are
claims, unless a search or a timed choice picked the program (``decided``; they are then held to their
assembly and their grid by reportgen.data.searchfacts).  A hand-written stage's FMA counts forged to
'64 scalar, no vector FMA' went unflagged while every codegen subtree was left out."""

CASE_LEFT_OUT = frozenset({"tuning_fingerprint", "tuning_run"})
"""Case fields naming the database a timing used: each continued campaign names another."""


HELD_BY = {
    "tuning": ("reportgen.data.runfacts.tuning_problems", "reportgen.data.searchfacts._int8_tuning",
               "reportgen.data.searchfacts._scheduled_problems", "reportgen.data.searchfacts._borrowed_tuning"),
    "rules_tuning": ("reportgen.data.searchfacts._e2e", "reportgen.data.searchfacts._rules_problems"),
    "network_check": ("reportgen.data.searchfacts._rules_problems",),
    "campaign": ("reportgen.data.load.read_campaigns", "reportgen.data.searchfacts._snapshot_problems"),
    "allocation": ("reportgen.data.searchfacts._allocation_problems",),
    "coverage": ("reportgen.data.searchfacts._coverage_problems",),
    "failures": ("reportgen.data.searchfacts._search_problems",),
    "trials_done": ("reportgen.data.searchfacts._search_problems",),
    "curve": ("reportgen.data.searchfacts._curve_problems",),
    "paired_peer": ("reportgen.data.searchfacts._paired_problems", "reportgen.pages.history.PAIRED"),
    "op_profile": ("reportgen.data.claims.profile_share_jump", "reportgen.data.claims.PROFILE_LABELS"),
    "kernel_profile": ("reportgen.data.claims.profile_share_jump", "reportgen.data.claims.conv_row_shares"),
    "node_profile": ("reportgen.data.claims.profile_share_jump", "reportgen.data.claims.conv_row_shares"),
    "codegen": ("reportgen.data.searchfacts._compiled_problems", "reportgen.data.claims.compiled"),
    "dot_instructions": ("reportgen.data.searchfacts._compiled_problems", "reportgen.data.claims.compiled"),
    "asm": ("reportgen.data.searchfacts._asm",),
    "schedule_params": ("reportgen.data.searchfacts._tiles_problems", "study.tails.problem"),
    "kernels": ("reportgen.data.claims._shape_calls", "reportgen.data.claims._kernel_shapes"),
    "artifacts": ("study.ids.artifact_ref_problem", "reportgen.data.load.read_artifact"),
    **{name: ("reportgen.data.claims.CASE_LEFT_OUT",) for name in CASE_LEFT_OUT},
    **{name: ("reportgen.data.claims.NOISY",) for name in NOISY},
    # texts a page prints that are no level (TEXT_LEVELS): what ties each to its evidence
    "tiles_chosen_by": ("reportgen.data.searchfacts._tiles_problems",),
    "theoretical": ("study.work.peak_problems",),
    "ir_text": ("reportgen.data.searchfacts._ir_stats_problems",),
    "before_text": ("reportgen.data.searchfacts._ir_stats_problems",),
    "after_text": ("reportgen.data.searchfacts._ir_stats_problems",),
}
"""What holds each subtree ``claims`` leaves out where a page prints it (SEARCHED, COMPILED of a chosen program,
the noisy single measurements): the checks that tie it to its evidence, or the declaration that leaves it
free.  tests/test_fields_held.py builds the site with the current records' fields tracked and fails on a field
a page reads that neither a level (claims, durations) nor an entry here holds: the micro-kernel's cache
blocks, printed beside its tiles, were held by nothing until it listed them.  A text is a level at the same code
only, so a printed text is held by TEXT_LEVELS or an entry here (round 87: the engine a scheme ran and the
search's cost model were printed over changed code, held by nothing)."""


PROFILES = work.PROFILES
PROFILE_LABELS = ("kind", "operands", "op", "calls", "node", "inputs", "outputs")
"""An operator profile's rows are ordered by time, but what each row names is the program's: the count of
rows of each label (a kernel's kind, its operands' class, its operator, its calls, a node's name and its
tensors' shapes) is a claim.  Every kernel relabelled 'integer' made the INT8 page read '28 integer
kernels, 100 %' for 24, 2 and 2; two ORT nodes' shapes swapped made TVM 15.66x slower on the stem."""


RUN_REFERENCE = re.compile(r"runs/|[0-9]{8}T[0-9]{6}Z")
"""A text naming a run (an artifact's path, a run id) differs between runs by design."""


def _count(value):   # any integer: a negative count is compared too, as the schema leaves extra's counts unchecked
    return stats.is_count(value, low=None)


def _totals(path, items):
    """The totals of a mapping of counts keyed by names (kernel_calls, quantized_ops, an instruction's registers):
    its sum and its number of names ("~total", "~names": after its fields, which name a move first), and of a
    mapping of rows of counts (ort_coverage.by_op) each count's sum ("~total", field).  Names change with the code, and a claim is compared over changed code only where
    both records hold it: 25 kernel calls renamed and tripled, 20 integer operators moved to float under new labels,
    an FMA register dropped were printed unflagged."""
    if len(path) < 2:   # a record's extra, check or case is no mapping of counts by name
        return
    values = [v for _k, v in items]
    if all(_count(v) for v in values):   # an empty mapping too: an FMA row emptied printed 'no vector FMA'
        yield (*path, "~total"), sum(values)
        yield (*path, "~names"), len(values)
    elif values and all(isinstance(v, dict) for v in values):
        fields = {f for v in values for f, x in v.items() if isinstance(f, str) and _count(x)}
        for field in sorted(fields):
            if all(_count(v.get(field, 0)) for v in values):
                yield (*path, "~total", field), sum(v.get(field, 0) for v in values)


def _leaves(roots, keep):
    """(path, value) of every leaf under ``roots`` ((path, node) pairs), descending into the dict keys
    ``keep`` accepts and into every list, whose length is a leaf of its own ("#len"); a mapping of counts adds its
    totals (_totals)."""
    stack = list(roots)
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            kept = [(k, v) for k, v in node.items() if isinstance(k, str) and keep(k)]
            yield from _totals(path, kept)
            stack.extend(((*path, k), v) for k, v in kept)
        elif isinstance(node, list):
            yield (*path, "#len"), len(node)
            stack.extend(((*path, f"[{i}]"), v) for i, v in enumerate(node))
        else:
            yield path, node


def claims(rec):
    """{path: value} of what a record's extra and check state and of the case fields its id does not name
    (unnamed_case), left out TIMED leaves and SEARCHED subtrees: every finite number, every true/false and
    every text that names no run; the rows of each label of an operator profile (PROFILES).  A path is a tuple of keys (a key "score.top1_agree" beside a real
    score.top1_agree took the comparison over when it came first).  A list's rows are compared row by row
    (a per-layer table printed every row and named the worst layer: its errors divided by 100 moved
    nothing) and its length is a claim ("#len": a list of float operators emptied showed 0 for 4)."""
    loose = searched(rec)
    left_out = SEARCHED | COMPILED if decided(rec) else SEARCHED
    roots = [(("extra",), rec.get("extra")), (("check",), rec.get("check")), (("case",), unnamed_case(rec))]
    out = {path: node for path, node in _leaves(roots, lambda k: k not in left_out and not TIMED.search(k)
                                                and not (k == "kernels" and loose))   # a search's knobs differ
           if isinstance(node, bool) or (isinstance(node, str) and not RUN_REFERENCE.search(node))
           or stats.is_number(node)}
    extra = rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
    for key in PROFILES:
        rows = extra.get(key)
        # one JSON list of every label field, absent ones null: 'node=A,inputs=[..]' as a name is not a shape
        labels = Counter(json.dumps([row.get(f) for f in PROFILE_LABELS], ensure_ascii=False, default=str)
                         for row in (rows if isinstance(rows, list) else ()) if isinstance(row, dict))
        out.update({("extra", key, "#rows", label): count for label, count in labels.items()})
        # and its calls by kind, whatever the rows' names, at the same code (jump): every row's calls tripled and
        # relabelled moved nothing while the rows were compared by their whole label; over changed code the calls
        # move with the program (fusion, the rule library: 11 committed records moved 2x), declared
        counted = [row for row in (rows if isinstance(rows, list) else ()) if isinstance(row, dict) and _count(row.get("calls"))]
        if counted:   # the kinds TVM's profiler writes held at 0 where none is left (every row relabelled away)
            out.update({("extra", key, "~calls", kind): 0 for kind in PROFILE_KINDS})
        for row in counted:
            path = ("extra", key, "~calls", str(row.get("kind")))
            out[path] = out.get(path, 0) + row["calls"]
    size = extra.get("bytes", extra.get("weights_bytes"))   # the size the INT8 page prints, from either field
    if stats.is_number(size):   # (bytes renamed weights_bytes and 20x smaller left each path on one side only)
        out[("printed", "size")] = size   # compared after every field of its own ("printed" sorts after "extra")
    return out


def durations(rec):
    """{path: seconds} of the single measurements a record states (SECONDS leaves of its extra and check,
    left out the SEARCHED subtrees and the NOISY ones): compared at SINGLE_SHOT_JUMP."""
    roots = [(("extra",), rec.get("extra")), (("check",), rec.get("check"))]
    return {path: node for path, node in _leaves(roots, lambda k: k not in SEARCHED)
            if SECONDS.search(path[-1]) and path[-1] not in NOISY and stats.is_number(node) and node > 0}


def unnamed_case(rec):
    """The case fields its id does not name (a label, a budget, a group the pages print beside the
    figures): claims like the rest; the id's own fields are the case's key."""
    _family, named = cases.fields(str(rec.get("id", "")))
    keys = set(named) | {k for n in named for k in cases.CASE_KEYS.get(n, ()) + cases.ONLY_CASE_KEYS.get(n, ())}
    case = rec.get("case")
    return {k: v for k, v in case.items() if k not in keys and k not in CASE_LEFT_OUT} if isinstance(case, dict) else {}


def shown(path):
    """A claim's path as the jumps table names it: extra.layers[3].rel_err."""
    return ".".join(path).replace(".[", "[").replace(".#len", "#len")


SEARCHED_ENGINES = re.compile(r"^(tvm_d|tvm_d_prepack|tvm_\w+_tuned)$")


def searched(rec):
    """Whether a search scheduled the record's program (its errors move with the schedule): read from its
    case (the engine or the GEMM stage, part of its id), never from its own claim (a TFLite record saying
    "tuned": true loosened its own error check to 10x)."""
    case = rec.get("case") or {}
    return (rec.get("experiment") == "e2e_tune" or bool(SEARCHED_ENGINES.match(str(case.get("engine", ""))))
            or str(case.get("stage", "")).startswith("autotuned"))


def decided(rec):
    """Whether a search or a timed choice picked the record's program: a searched program, or one whose
    tiles the fastest of a grid chose (extra.tiles_chosen_by names that grid record)."""
    chosen = (rec.get("extra") or {}).get("tiles_chosen_by")
    return searched(rec) or (isinstance(chosen, str) and "/" in chosen)


def compiled(rec, field):
    """A record's ``field`` of COMPILED (its codegen, its dot instructions) where a rule holds it, else None:
    a program nobody chose is held by its earlier runs (a level), a chosen one (``decided``) by the assembly
    it cites (reportgen.data.searchfacts); a searched stage that cites no assembly is held by nothing, and
    its FMA counts forged from 32 zmm to 64 scalar were printed on the codegen page."""
    extra = rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
    artifacts = extra.get("artifacts") if isinstance(extra.get("artifacts"), dict) else {}
    value = extra.get(field)
    return value if isinstance(value, dict) and (not decided(rec) or "asm" in artifacts) else None


def _facts(rec, memo):
    """(claims, durations) of a record, kept in ``memo`` (by the record's identity, for as long as the caller
    holds the records: a history compares each record with the next ones of its case) when one is given."""
    if memo is None:
        return claims(rec), durations(rec)
    if id(rec) not in memo:
        memo[id(rec)] = (rec, claims(rec), durations(rec))   # the record kept: its id is not reused meanwhile
    return memo[id(rec)][1:]


def jump(earlier, rec, factor, skip=frozenset(), memo=None):
    """(ratio, name) of the first claim of ``rec`` that moved from ``earlier``'s (leaving out claims under a
    key of ``skip``: what the two runs' profiles change, data.profiles.claims_across): a share by more than
    SCORE_JUMP, a number by ``factor`` or more (SEARCH_ERROR_JUMP for a searched program's errors), or
    between zero and not zero, or across zero; a true/false or a text that changed; a claim that appeared
    or went (deleting one size and adding another moved the page's size column); else None.  ``memo``: a
    dict the caller keeps while its records do not change (what each record claims is read once)."""
    (before, before_durations), (after, after_durations) = _facts(earlier, memo), _facts(rec, memo)
    if skip:
        before, after = ({p: v for p, v in c.items() if skip.isdisjoint(p)} for c in (before, after))
    found = _compare(before, after, factor, searched(rec) or searched(earlier)) or profile_share_jump(earlier, rec)
    if found:
        return found
    return _durations_moved(before_durations, after_durations, factor, skip)


def _durations_moved(before, after, factor, skip=frozenset()):
    """(ratio, name) of the first duration both records state that moved SINGLE_SHOT_JUMP or more (a KERNEL_SUMS
    one: ``factor``), or None."""
    for path in sorted(set(before) & set(after)):
        limit = factor if path[-1] in KERNEL_SUMS else SINGLE_SHOT_JUMP
        if skip.isdisjoint(path) and not 1 / limit < after[path] / before[path] < limit:
            return after[path] / before[path], shown(path)
    return None


def _compare(before, after, factor, loose):
    """(ratio, name) of the first claim of ``after`` (a claims() dict) that moved from ``before``'s, or None
    (jump's rules; ``loose``: a searched program's errors jump at SEARCH_ERROR_JUMP)."""
    for path in sorted(set(before) | set(after)):
        if path not in before or path not in after:
            return (math.inf if path in after else 0.0), shown(path) + (" (new)" if path in after else " (gone)")
        a, b = before[path], after[path]
        if a == b and type(a) is type(b):
            continue
        name = shown(path)
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
            return math.inf, name   # a text or a true/false changed
        leaf = path[-2] if path[-1] == "#len" or path[-1].startswith("[") else path[-1]
        if SHARE.search(leaf) and 0 <= a <= 1 and 0 <= b <= 1:
            if abs(b - a) > SCORE_JUMP:
                return (b / a if a else math.inf), name
            continue
        if a == 0 or b == 0 or (a < 0) != (b < 0):
            return (b / a if a else math.inf), name
        limit = SEARCH_ERROR_JUMP if loose and leaf in ERRORS else factor
        if not 1 / limit < b / a < limit:
            return b / a, name
    return None


def text_level(path):
    """A text compared over changed code too: a TEXT_LEVELS leaf, or a row or field of one (the passes a
    demonstration ran, the kind of a case's target, the delegate of an engine)."""
    return path[-1] in TEXT_LEVELS or (len(path) > 1 and path[-2] in TEXT_LEVELS)


def level_jump(earlier, rec, factor, memo=None):
    """(ratio, name) of the first claim that moved its level between two records of one case over changed code,
    or None: every number, true/false and operator profile row count a page may print, and the profiles' time
    shares (profile_share_jump), by jump's rules.  Left out: texts (a model file's sha256, a converter's path, a
    kernel's name change with the code) and a field the new code added or dropped (a profile's rows aside).  An
    INT8 error 100x smaller, a model 20x smaller and every kernel relabelled 'integer' were published unflagged
    while only the median, shares and the check's threshold were levels; and the durations as jump compares them
    (an INT8 training forged 50x slower over changed code was printed unflagged while they were left out)."""
    (before, before_durations), (after, after_durations) = _facts(earlier, memo), _facts(rec, memo)

    def kept(mine, other):   # a profile's rows by their whole label (kernel names) change with the code
        return {p: v for p, v in mine.items() if (not isinstance(v, str) or text_level(p))
                and (p in other or text_level(p))   # a text level that went is a change too (null printed 'none')
                and "#rows" not in p and "~calls" not in p}   # calls by kind too: 11 committed records moved 2x
    return (_compare(kept(before, after), kept(after, before), factor, searched(rec) or searched(earlier))
            or profile_share_jump(earlier, rec, counts=True)
            or _durations_moved(before_durations, after_durations, factor))   # a training 50x slower, printed


PROFILE_KINDS = ("kernel", "builtin")
"""The kinds of a profile's rows TVM's profiler writes (the committed rows hold no other)."""
TEXT_LEVELS = frozenset({"output_dtype", "target", "fp32_peer", "isa", "architecture", "relax_equivalent", "new_api", "era",
                         "process", "mcpu", "passes", "cost_model", "old_api", "engine", "version", "pass", "group",
                         "method", "scheme", "quant"})
"""Texts compared over changed code too: what the machine and the model decide (a program's output type, the target
it was compiled for, the instruction set whose peak a share divides by) and the record a page divides by
(fp32_peer): the code does not change them, and a float16 output, a CUDA target or an INT8 ratio over the naive
baseline (2246x for 4.13x) were printed unflagged.  Round 86 added what else pages print as text: the BLAS kernel's
architecture (it picks the peak a share divides by), a pass's Relax equivalent and the passes a demonstration ran,
a migration row's new API and era, how a peer was timed (process), the AVX2 target's mcpu.  Round 87: the search's
cost model, a migration row's old API, the engine and version a scheme ran (the parity table)."""


SHARE_LABELS = {"kernel_profile": ("kind", "operands"), "node_profile": ("op",)}
"""The labels of a one-call profile whose share of its time the pages print (the kernel classes' table, the
operators' table): each label's share is the program's, not noise."""
PROFILE_SHARE_JUMP = 0.2
"""How far a label's share of a profile's time may move between two records of one case: over the committed
runs' 48 consecutive pairs it moved 0.047 at most; QLinearConv forged from 86.4 % to 3.8 % (the profile's total
kept) moved nothing that was compared."""
PROFILE_SHARE_FACTOR, PROFILE_SHARE_FLOOR = 10.0, 0.001
"""And by what factor a label holding at least PROFILE_SHARE_FLOOR of the time on either side may move (the
committed pairs: 4.3x at most above 0.1 %): ORT's Transpose forged from 0.17 % to 19.7 % stayed under the
absolute bound, QLinearMatMul 0.7 % -> 0.0 % under a floor of 1 %."""
CONV_ROW_FACTOR, CONV_ROW_FLOOR = 2.0, 0.01
"""By what factor one convolution's row (a kernel by its name, an ORT node by its operator and shapes, the
per-convolution tables' own key) holding at least CONV_ROW_FLOOR of its profile may move its share: the tables
print each row (the committed pairs: 1.8x at most); ORT's time moved between its QLinearConv nodes, the class's
share kept, turned one row's TVM / ORT from 0.94x to 3.78x (2.86x slipped under a factor of 3; with every node
renamed, nothing was compared by name)."""


def _timed_rows(rec, key):
    """(rows of a record's profile ``key`` with seconds, their total seconds): no rows when the total is not > 0."""
    extra = rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
    rows = [r for r in extra.get(key) or () if isinstance(r, dict) and stats.is_number(r.get("seconds"))]
    total = sum(r["seconds"] for r in rows)
    return (rows, total) if total > 0 else ([], 0.0)


def profile_shares(rec):
    """{(profile, label field, label): [rows, share of the profile's seconds]} of a record's SHARE_LABELS."""
    out = {}
    for key, fields in SHARE_LABELS.items():
        rows, total = _timed_rows(rec, key)
        for field in fields:
            for row in rows:
                label = out.setdefault((key, field, str(row.get(field))), [0, 0.0])
                label[0] += 1
                label[1] += row["seconds"] / total
    return out


def conv_row_shares(rec):
    """{(profile, row key): share of the profile's seconds} of the rows the pages print one by one (CONV_ROW_FACTOR):
    the convolutions' rows (a rule's kernel by its shape, _kernel_shape; another kernel by its name; an ORT node by
    its shape, _node_shape) and every operator of op_profile by its name (the e2e page names the slowest as the
    bottleneck, with its share: 22 % read 38 % for another kernel, never compared)."""
    out = {}
    shapes = _kernel_shapes(rec)
    for key in ("kernel_profile", "node_profile", "op_profile"):
        rows, total = _timed_rows(rec, key)
        for i, row in enumerate(rows):
            # a row the tables read, by the pages' own test (data.convs), or by its name: a rule's kernel renamed
            # without 'conv' stayed in its printed row, its seconds x5.9 compared with nothing
            shape = shapes[i] if key == "kernel_profile" else None
            read = key == "node_profile" and (convs.ort_conv(row) or convs.ort_qconv(row))
            if key == "op_profile" or shape or read or "conv" in str(row.get("op")).lower():
                label = (key, _node_shape(row) if key == "node_profile" else shape or str(row.get("op")))
                out[label] = out.get(label, 0.0) + row["seconds"] / total
    return out


def _shape_calls(rec):
    """{row key: calls} of a rule record's kernel profile rows keyed by their convolution's shape (_kernel_shape): the
    per-convolution table counts a row's convolutions by its kernels' calls and gives it as many ORT nodes, so calls
    halved, seconds kept, moved a row's ORT side 1.90 -> 0.95 ms and TVM / ORT 1.13x -> 2.25x."""
    out = {}
    for row, shape in zip(_timed_rows(rec, "kernel_profile")[0], _kernel_shapes(rec)):
        if shape and stats.is_number(row.get("calls")) and row["calls"] > 0:
            out[shape] = out.get(shape, 0) + row["calls"]
    return out


def _kernel_shapes(rec):
    """_kernel_shape of each of a record's timed kernel_profile rows, in their order (the shares and the calls read
    one list)."""
    info = ((rec.get("extra") or {}).get("rules") or {}).get("kernels") if isinstance(rec.get("extra"), dict) else None
    info = info if isinstance(info, dict) else {}
    lanes = convs.lanes_of(rec)
    return [_kernel_shape(info.get(row.get("op")), lanes, row.get("op")) for row in _timed_rows(rec, "kernel_profile")[0]]


SHAPED = "shape "
"""How a row keyed by its shape starts (a name is the program's and changes with it; a shape is the model's)."""


def _kernel_shape(kernel, lanes=16, op=""):
    """A rule's convolution kernel as the per-convolution tables print it (data.convs, the pages' own reader: an fp32
    kernel's output and input channels, kernel and output size; an int8 kernel's channels and output size),
    whatever the build named it (TVM renumbers its fused kernels with the code: renamed, 1.07x read 3.22x, compared
    with nothing) and whatever else the kernel lists (an unprinted 'ic': 128 made a row of its own, compared with
    nothing, and its calls moved the row 2x); None for a kernel no convolution rule describes.  ``lanes``: the
    record's rules.lanes; ``op``: the kernel's name (an older stem kernel says it by name)."""
    try:
        found = convs.tvm_conv(kernel, op, lanes)
        key = [found[f] for f in ("o", "i", "kh", "kw", "oh", "ow")] if found else convs.tvm_qconv(kernel)
    except (KeyError, TypeError, ValueError, OverflowError):
        return SHAPED + json.dumps(["unread", str(kernel.get("rule"))]) if isinstance(kernel, dict) else None
    return SHAPED + json.dumps(list(key)) if key else None


def _node_shape(row):
    """An ORT node's row as the convolution tables read it (data.convs: a Conv's weight and output by position, a
    QLinearConv's channels and output size), and a node they do not read by its operator and the dimensions of its
    first input and output in any order with its first 4-d input (a strided 3x3 and a 1x1 projection of one stage
    share their input and output, and print as two rows), whatever else it lists (an extra input or a scale's shape
    moved a node out of comparison when the whole list was the key, and 0.94x read 3.78x): a node the table stops
    reading leaves its row (output dims permuted, the weight moved behind a 1-d input: 1.13x read 4.53x while a
    sorted key stayed the same)."""
    found = convs.ort_conv(row)
    if found is not None:
        return SHAPED + json.dumps(["conv", *(found[f] for f in ("o", "i", "kh", "kw", "oh", "ow"))])
    key = convs.ort_qconv(row)
    if key is not None:
        return SHAPED + json.dumps(["qconv", *key])
    ins = row.get("inputs") if isinstance(row.get("inputs"), list) else []
    dims = [sorted(map(str, v)) if isinstance(v, list) else str(v)
            for v in ((ins or [None])[0], (row.get("outputs") or [None])[0])]
    weight = next((list(map(str, v)) for v in ins[1:] if isinstance(v, list) and len(v) == 4), None)
    return SHAPED + json.dumps([str(row.get("op")), *dims, weight])


def _per_call(rec, key):
    """A one-call profile's total seconds over the record's median call, or None: the per-convolution tables print
    the rows' seconds (TVM / ORT, GFLOPS, share of the peak), so a profile scaled whole, its shares and the median
    kept, moved TVM / ORT 1.13x -> 2.82x and the share of the peak 96 % -> 38 % with nothing compared (work bounds
    it within PROFILE_LATENCY of the call; the committed records: 0.72x to 1.64x)."""
    _rows, total = _timed_rows(rec, key)
    p50 = (rec.get("stats") or {}).get("p50") if isinstance(rec.get("stats"), dict) else None
    return total / p50 if total and stats.is_number(p50) and p50 > 0 else None


def profile_share_jump(earlier, rec, counts=False):
    """(ratio, name) of the first label whose share of a profile's time moved by more than PROFILE_SHARE_JUMP
    (a label that appeared or went holding that much too), or, with ``counts``, whose count of rows changed
    (24 integer kernels and 2 float relabelled as 28 integer), of a one-call profile's total over the median call
    (_per_call) and of the first row the pages print one by one (conv_row_shares) that moved by CONV_ROW_FACTOR; ``counts`` also says a level is asked for (an operator's
    name is then no row of its own); None when none did."""
    before, after = profile_shares(earlier), profile_shares(rec)
    for label in sorted(set(before) | set(after)) if before and after else ():
        (rows_a, a), (rows_b, b) = before.get(label, (0, 0.0)), after.get(label, (0, 0.0))
        name = f"extra.{label[0]}[{label[1]}={label[2]}]"
        if counts and rows_a != rows_b:
            return (rows_b / rows_a if rows_a else math.inf), name + " rows"
        if abs(b - a) > PROFILE_SHARE_JUMP or (max(a, b) >= PROFILE_SHARE_FLOOR
                                                and not min(a, b) * PROFILE_SHARE_FACTOR > max(a, b)):
            return (b / a if a else math.inf), name + " share"
    for key in work.ONE_CALL_PROFILES:   # the profile's seconds against the call it profiles
        a, b = _per_call(earlier, key), _per_call(rec, key)
        if a and b and not 1 / CONV_ROW_FACTOR < b / a < CONV_ROW_FACTOR:
            return b / a, f"extra.{key} total / p50"
    before, after = _shape_calls(earlier), _shape_calls(rec)
    for label in sorted(set(before) | set(after)) if before and after else ():
        if before.get(label) != after.get(label):   # the model's count of a convolution: no code changes it
            return after.get(label, 0) / before.get(label, math.inf), f"extra.kernel_profile[{label[:80]}] calls"
    before, after = conv_row_shares(earlier), conv_row_shares(rec)
    # a name is the program's: compared where both hold it; a shape is the model's convolution, so one that appears
    # or goes holding CONV_ROW_FLOOR of the time moved too (its share 0 on the other side)
    for label in sorted((set(before) & set(after)) | {k for k in set(before) ^ set(after) if k[1].startswith(SHAPED)}):
        if counts and label[0] == "op_profile":   # a level (over changed code): an operator's name is renumbered
            continue   # with the code (fused_conv2d_nchwc11 is another convolution after it)
        a, b = before.get(label, 0.0), after.get(label, 0.0)
        if max(a, b) >= CONV_ROW_FLOOR and not min(a, b) * CONV_ROW_FACTOR > max(a, b):
            return (b / a if a else math.inf), f"extra.{label[0]}[{label[1][:80]}] share"
    return None
