"""The work a case defines (floating-point operations per call), and the types of the ``extra``
fields that pages and derived figures read.

A record's ``extra`` is the family's own context, written by the harness and, like every result
file, untrusted when read.  The figures derived from it (GFLOPS, % of peak) are therefore computed
from what the case defines wherever the case defines it: a GEMM of m x n x k does 2*m*n*k
floating-point operations whatever its ``extra.flops_per_call`` says, and the FMA loop of
machine_peak does iters x accumulators x lanes x 2 per thread.  ``extra.flops_per_call`` stays in
the record (the harness states it; readers of the raw data use it) and must agree with the case.
"""
import math
import re

from study import cases, identity, ids, rewrite, scores, tails
from study.targets import extra_problems as _target_problems, isa_problems as _isa_problems
from study.stats import is_count, is_number

GEMM_FAMILIES = ("numpy_gemm", "gemm_hand", "gemm_tvm")
"""Families whose case is a matrix product: its work is 2*m*n*k (a square one names n alone)."""

VECTOR_BYTES = {"sse": 16, "avx": 32, "avx2": 32, "avx512": 64}
ELEMENT_BYTES = {"float32": 4, "float64": 8}
MAX_ACCUMULATORS = 64
"""Independent FMA chains the peak loop may keep (32 vector registers at most, two per chain)."""

MAX_OPS_PER_S = 1e16
"""The most operations a second any machine of the study can do (ten peta-operations: a few times
an H200's dense int8 peak, about 6000 times the fastest committed record): a call faster than its
work allows is a forged time or case (n=32 in a picosecond published 65 PFLOPS from a 2-core VM)."""

FLOPS_TOLERANCE = 1e-9
"""Relative difference allowed between extra.flops_per_call and the work the case defines."""


def _dimension(case, name):
    value = case.get(name, case.get("n"))
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def flops_per_call(rec):
    """Floating-point operations of one call as the record's case defines them, or None where the
    case does not define them (a family that is not a GEMM or the peak loop)."""
    family, case, extra = rec.get("experiment"), rec.get("case") or {}, rec.get("extra") or {}
    if family in GEMM_FAMILIES:
        dims = [_dimension(case, name) for name in ("m", "n", "k")]
        return 2 * dims[0] * dims[1] * dims[2] if None not in dims else None
    if family == "machine_peak":
        isa, dtype = (value if isinstance(value, str) else None for value in (case.get("isa"), case.get("dtype")))
        vector, element = VECTOR_BYTES.get(isa), ELEMENT_BYTES.get(dtype)   # a list as isa stopped the check
        iters, threads, accumulators = case.get("iters"), case.get("threads"), extra.get("accumulators")
        if (vector and element and is_count(iters, 1) and is_count(threads, 1)
                and is_count(accumulators, 1, MAX_ACCUMULATORS)):
            return iters * accumulators * (vector // element) * 2 * threads
    return None


MAX_TRIALS = 10**7
"""Tuning trials a record or a campaign may count (MetaSchedule measures some thousands; a count of
1e90 was printed as a tuned kernel's trials, and a campaign step of 1e90 trials in 1.5 s published)."""

MAX_CAMPAIGN_STEPS = 1_000
"""The most steps a campaign may hold (one per retest; the committed ones hold 4 at most): 30 000 steps
made every build take 4 minutes and print a line for each."""
def step_order_problems(where, step, runs):
    """Steps are appended one per retest: each names a run not named before, started after the previous
    step's (a history read backwards or counted twice is forged); ``runs``: the earlier steps' {run id: index}."""
    if step["run_id"] in runs:
        return [f"{where}.run_id: {step['run_id']!r:.80} is already the run of steps[{runs[step['run_id']]}] "
                "(one step per retest)"]
    last = next(reversed(runs), None)
    if last is not None and step["run_id"][:16] <= last[:16]:
        return [f"{where}.run_id: {step['run_id']!r:.80} did not start after the previous step's run "
                f"{last!r:.80} (steps are in the order the retests ran)"]
    return []


MAX_SECONDS = 1e6
"""The longest a step a record times may take (compile, cold call, tuning, a profile's total: about
eleven days, as a family in run.json): a compile time of 1e300 s printed 301 digits, and a cold
call of 1e306 s overflowed to inf in ms and stopped the build (the committed maximum is 2100 s)."""

NUMBER, SECONDS, COUNT, SHARE = "a number", "seconds >= 0", "a count >= 0", "a share from 0 to 1"
POSITIVE = "a count >= 1"
"""A count that is never zero where it is stated: a profile row's calls and runs (a kernel of 0 calls is no row),
a model's weight bytes ('0 KiB' of weights printed)."""
MAX_KERNELS = 100_000
"""Kernels a network's tuning may schedule (ResNet-50 has some seventy): 10^30 was printed as one count."""
KERNELS = f"a count of kernels from 0 to {MAX_KERNELS}"
COUNTS = "an object of counts >= 0"
TRIALS = f"a count of trials from 0 to {MAX_TRIALS}"
MIN_DURATION_S = 1e-12
"""The shortest plausible duration (schema.DURATION_RANGE_S, a profile row's seconds): a picosecond; below it
a figure such as GFLOPS overflows (a row of 5e-324 s printed 'inf x')."""
DURATION = f"a duration from {MIN_DURATION_S:g} to {MAX_SECONDS:g} s"
"""A measured time a page divides by or prints as one (a tuned kernel's best, the untuned kernels' total): 5e-324
printed '4.94e-321 ms' and 'inf x', 0 printed '0 ms'."""
MAX_LANES = 64
LANES = f"a count of vector lanes from 1 to {MAX_LANES}"
MAX_SHAPES, MAX_RANK = 64, 8
SHAPES = f"a list of at most {MAX_SHAPES} shapes, each a list of at most {MAX_RANK} dimensions >= 0"
COST_MODELS = frozenset({"xgb", "mlp", "random", "none"})   # MetaSchedule's kinds (ms.CostModel.create)
EXTRA_TYPES = {
    "flops_per_call": NUMBER, "compile_seconds": SECONDS, "cold_seconds": SECONDS, "tuning_seconds": SECONDS,
    "op_profile_total_s": SECONDS, "import_seconds": SECONDS, "untuned_kernel_seconds": DURATION, "trials_done": TRIALS, "output": COUNT, "accumulators": COUNT, "lanes": COUNT,
    "weights_bytes": POSITIVE, "fp32_weights_bytes": POSITIVE, "bytes": POSITIVE,
    "tuned": (bool,), "changed": (bool,),
    "tuning": (dict,), "stats": (dict,), "score": (dict,), "rules": (dict,), "codegen": (dict,),
    "artifacts": (dict,), "agreement_set": (dict,), "paired_peer": (dict,), "theoretical": (dict,),
    "blas_kernel": (dict,), "asm": (dict,), "vector_fma_instructions": (dict,), "rules_tuning": (dict,),
    "campaign": (dict, type(None)), "agreement": (dict,), "training": (dict,), "schedule_params": (dict,),
    "engine": (dict,), "dot_instructions": (dict,), "before_stats": (dict,), "after_stats": (dict,),
    "avx2_target": (dict,), "rewrite": (dict, type(None)), "converter": (dict,), "ort_coverage": (dict,),
    "relax_ops": (dict,), "kernel_calls": (dict,), "failures": (dict,),
    "op_profile": (list,), "node_profile": (list,), "kernel_profile": (list,), "curve": (list,),
    "allocation": (list,), "layers": (list,),
    "fp32_peer": (str,), "tiles_chosen_by": (str,), "target": (str,), "process": (str,), "era": (str,),
    "old_api": (str,), "new_api": (str,), "cost_model": COST_MODELS,
    "output_dtype": (str,), "ir_text": (str,), "script_roundtrip": (bool,),
    "before_text": (str,), "after_text": (str,), "relax_equivalent": (str, type(None)), "isa": (str, dict),
}
"""The extra fields pages and derived figures read, each with what it must be (a mistyped one
would stop the build with an internal TypeError instead of a line naming the record)."""


def _type_problem(where, value, want):
    if want == NUMBER:
        ok = is_number(value)
    elif want == DURATION:
        ok = is_number(value) and MIN_DURATION_S <= value <= MAX_SECONDS
    elif want == SECONDS:
        ok = is_number(value) and value >= 0
        if ok and value > MAX_SECONDS:
            return f"{where}: {value!r:.40} s is more than the {MAX_SECONDS:g} s a step of a run may take"
    elif want == COUNTS:   # {instruction or kernel kind: a count}
        ok = isinstance(value, dict) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                             for v in value.values())
    elif want == POSITIVE:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    elif want in (COUNT, TRIALS, KERNELS):
        ok = (isinstance(value, int) and not isinstance(value, bool) and value >= 0
              and value <= {COUNT: value, TRIALS: MAX_TRIALS, KERNELS: MAX_KERNELS}[want])
    elif want == LANES:   # a vector's lanes, which a kernel's channels are divided by
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_LANES
    elif want == SHAPES:   # tensor shapes, each a list of dimensions (a 'x' stopped the build in int())
        ok = isinstance(value, list) and len(value) <= MAX_SHAPES and all(
            isinstance(s, list) and len(s) <= MAX_RANK and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                               for d in s) for s in value)
    elif isinstance(want, frozenset):   # a closed set of labels
        ok, want = isinstance(value, str) and value in want, "one of " + ", ".join(sorted(want))
    elif want == SHARE:   # an accuracy, an agreement, a share of time: 12.5 would publish 1250 %
        ok = is_number(value) and 0 <= value <= 1
    else:
        ok = isinstance(value, want)
        want = " or ".join("null" if t is type(None) else t.__name__ for t in want)
    return None if ok else f"{where}: expected {want}, got {type(value).__name__} {value!r:.40}"


AGREEMENT = {"top1_agree": SHARE, "top5_agree": SHARE, "top5_exact": SHARE}
IR_STATS = {"n_calls": COUNT, "n_relax_funcs": COUNT, "n_tir_funcs": COUNT, "intermediate_bytes": COUNT,
            "tir_alloc_bytes": COUNT, "n_constants": COUNT, "constant_bytes": COUNT, "n_intermediates": COUNT,
            "calls": (dict,), "calls_all": (dict,)}
NESTED_FIGURES = {
    "paired_peer": {"ratio": NUMBER, "blocks": COUNT, "calls_per_block": COUNT, "peer_p50_s": SECONDS, "tries": COUNT},
    "score": dict(AGREEMENT, accuracy=SHARE, fp32_accuracy=SHARE),
    "agreement_set": dict(AGREEMENT, inputs=COUNT, margins=(dict,)),
    "agreement": AGREEMENT,
    "training": {"seconds": SECONDS, "epochs": COUNT, "eval_accuracy": SHARE, "train_accuracy": SHARE,
                 "counts": (dict,)},
    "stats": IR_STATS, "before_stats": IR_STATS, "after_stats": IR_STATS,
    "tuning": {"trials": TRIALS, "seconds": SECONDS, "cumulative_trials": TRIALS, "valid_trials": TRIALS,
               "scheduled": KERNELS, "unscheduled": (list,), "record": (str,), "run_id": (str,),
               "measured": TRIALS, "valid": TRIALS, "tasks": KERNELS, "tensorized": (dict,)},
    "asm": {"hottest": COUNTS, "kernels_with": COUNTS, "all_kernels": COUNTS, "hottest_kernel": (str,)},
    "rules_tuning": {"trials": TRIALS, "seconds": SECONDS},
    "rules": {"trials": TRIALS, "limit": COUNT, "kernels": (dict,), "lanes": LANES},
    "theoretical": {"formula": (str,)},
    "vector_fma_instructions": {"xmm": COUNT, "ymm": COUNT, "zmm": COUNT},
    "rewrite": {"quantize": COUNT, "dequantize": COUNT, "quantized_ops": (dict,), "float_ops": (list,),
                "residual_fused": COUNT, "residual_wide": COUNT, "concat_integer": COUNT,
                "bias_corrected": COUNT, "weights_rounded": COUNT,
                "rounding_layers": COUNT, "rounding_error_ratio_median": NUMBER, "rounding_error_ratio_max": NUMBER,
                "vnni_packed": COUNTS, "float_kinds": (list,), "peer_calibration_images": COUNT,
                "calibration": (dict,)},   # and study.rewrite.problems
    "converter": {"xnnpack_partitions": COUNT, "int8_compute_ops": (int, list), "float_compute_ops": (int, list)},
    "codegen": {"fma_scalar": COUNT, "fma_packed": (dict,), "widest_register": (str,)},
    "ort_coverage": {"by_op": (dict,)},
}
"""Figures pages print from inside an extra field (a ratio, an agreement share, a trial count)."""


PROFILE_ROW = {"seconds": SECONDS, "calls": POSITIVE, "runs": POSITIVE, "op": (str,), "node": (str,), "kind": (str,),
               "operands": (str,), "inputs": SHAPES, "outputs": SHAPES}
"""A row of a kernel or node profile, as the per-kernel tables read it."""
MAX_ROW_CALLS = 10_000
"""The most calls one row of a one-call profile counts (the committed rows: 113 at most): one call of a model runs
each of its kernels a few hundred times at most; 10^9 printed 109 692 580 445 GFLOPS, 24 412 305 854 % of the peak."""
PROFILE_REQUIRED = {"op_profile": ("op", "kind", "calls", "seconds"), "kernel_profile": ("op", "kind", "calls", "seconds"),
                    "node_profile": ("node", "op", "inputs", "outputs", "seconds")}
"""What every row of each profile holds (the committed rows do): the pages index them, and order and share them
by their seconds, each > 0 (a null stopped the build and switched the order check off, a zero divided by zero)."""
PROFILES = tuple(PROFILE_REQUIRED)
"""The operator profiles a record may hold, each a list of rows ordered slowest first (the one list of
their names: the row checks, the order check, the claims' row labels read it)."""
ONE_CALL_PROFILES = ("kernel_profile", "node_profile")
"""The profiles of one call (their rows add up to about the record's median call; op_profile has a total
of its own, op_profile_total_s)."""
ROWS = {"allocation": {"share": SHARE, "seconds": SECONDS, "best_s": DURATION, "trials": TRIALS, "weight": POSITIVE,
                       "task": (str,)},
        "layers": {"saturation": SHARE, "rel_err": NUMBER, "max_abs_err": NUMBER, "layer": (str,), "dtype": (str,)}}
"""Rows of the tuning allocation and per-layer error tables, as the pages read them (an allocation row's weight is
the calls of its task in one inference, at least one: 0 divided the speed-up by zero)."""
MARGINS = {"error_median": SECONDS, "share_margin_below_error": SHARE, "flips": COUNT, "flip_margin_max": SECONDS,
           "margin_quantiles": (dict,)}
"""The fields of an agreement set's margins the INT8 page prints (each >= 0; the flip margin may be null)."""
RULE_TILE = ("oc_blocks", "ic", "ic_blocks", "kh", "kw", "oh", "ow", "oc_tile", "ow_tile")
"""The shape and tile of a kernel by rule, as the per-convolution tables read them."""
_OUTPUT = ("kh", "kw", "oh", "ow", "ow_tile")
RULE_REQUIRED = {"conv": ("oc_blocks", "ic_blocks", "oc_tile") + _OUTPUT, "vnni_conv": ("oc_blocks", "ic", "oc_tile") + _OUTPUT,
                 "avx2_conv": ("oc_blocks", "ic", "oc_tile") + _OUTPUT, "depthwise": _OUTPUT}
"""The tile fields each convolution rule's kernels hold (the committed ones do): the tables index them."""
RULES = frozenset(RULE_REQUIRED) | {"generic"}
"""The rules a kernel may name (experiments' rule library): the pages pick convolutions by these names."""


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:/-]{0,79}")
"""A name a record uses as a key that pages print (a register, an operator, an op type): letters,
digits and ``_ . : / -`` only, so that no key can carry markup into a page."""
COUNTS_BY_NAME = {("training", "counts"): COUNT, ("codegen", "fma_packed"): COUNT,
                  ("rewrite", "quantized_ops"): COUNT, ("relax_ops",): COUNT, ("kernel_calls",): COUNT,
                  ("ort_coverage", "by_op"): {"integer": COUNT, "float": COUNT}, ("failures",): COUNT}
"""Mappings pages print key by key: each key a NAME, each value a count (or an object of counts)."""


def _counts_problems(extra):
    out = []
    for path, want in COUNTS_BY_NAME.items():
        node = extra
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        where = "extra." + ".".join(path)
        for key, value in (node or {}).items() if isinstance(node, dict) else ():
            if not (isinstance(key, str) and NAME.fullmatch(key)):
                out.append(f"{where}: the key {key!r:.60} is not a name (letters, digits, _ . : / - only)")
            elif isinstance(want, dict):
                out += ([f"{where}[{key}]: expected an object, got {type(value).__name__}"]
                        if not isinstance(value, dict) else
                        [_type_problem(f"{where}[{key}].{k}", value[k], w) for k, w in want.items() if k in value])
            else:
                out.append(_type_problem(f"{where}[{key}]", value, want))
    codegen = extra.get("codegen")
    register = codegen.get("widest_register") if isinstance(codegen, dict) else None
    if isinstance(register, str) and not NAME.fullmatch(register):
        out.append(f"extra.codegen.widest_register: {register!r:.60} is not a register name")
    return out


def _label(name):
    """A kernel's or node's name as a reader tells it apart (case folded), or "" when it is no such name: printable
    ASCII without spaces, as TVM and ONNX Runtime write them (every committed one is)."""
    if not isinstance(name, str):
        return None
    return name.casefold() if re.fullmatch(r"[\x21-\x7e]{1,200}", name) else ""


def _nested_problems(extra):
    """The nested values derived figures compute with: a tuning curve's points, the theoretical peak,
    and NESTED_FIGURES."""
    out = [_type_problem(f"extra.{name}.{key}", extra[name][key], want)
           for name, fields in NESTED_FIGURES.items() if isinstance(extra.get(name), dict)
           for key, want in fields.items() if key in extra[name]]   # null too: no page prints 'None' for a figure
    # an IR summary holds every count (the graph page prints each: one left out or null stopped the build)
    out += [f"extra.{name}.{key}: missing or null (an IR summary holds {', '.join(IR_STATS)})"
            for name in ("stats", "before_stats", "after_stats") if isinstance(extra.get(name), dict)
            for key in IR_STATS if extra[name].get(key) is None][:1]
    passes = extra.get("passes", ["-"])
    if not (isinstance(passes, list) and passes and all(isinstance(p, str) and p for p in passes)):
        out.append(f"extra.passes: {passes!r:.40} is not a list of pass names")
    ci = (extra.get("paired_peer") or {}).get("ratio_ci") if isinstance(extra.get("paired_peer"), dict) else None
    if ci is not None and not (isinstance(ci, list) and len(ci) == 2 and all(map(is_number, ci))):
        out.append(f"extra.paired_peer.ratio_ci: expected [low, high], got {ci!r:.40}")
    for i, point in enumerate(extra.get("curve") or []):
        if not isinstance(point, dict):
            out.append(f"extra.curve[{i}]: expected an object, got {type(point).__name__}")
            continue
        for name, want in (("trial", TRIALS), ("elapsed_s", SECONDS), ("best_so_far_s", SECONDS)):
            if point.get(name) is not None:
                out.append(_type_problem(f"extra.curve[{i}].{name}", point[name], want))
    tables, seen = [(name, PROFILE_ROW) for name in PROFILES] + list(ROWS.items()), {}
    for name, fields in tables:   # the per-kernel, allocation and per-layer tables add these rows
        for i, row in enumerate(extra.get(name) or []):
            if not isinstance(row, dict):
                out.append(f"extra.{name}[{i}]: expected an object, got {type(row).__name__}")
                continue
            missing = [key for key in PROFILE_REQUIRED.get(name, ()) if row.get(key) is None]
            label = _label(row.get("node" if name == "node_profile" else "op")) if name in ONE_CALL_PROFILES else None
            if label == "":   # a zero-width space, a Cyrillic letter or a trailing space made one name two
                out.append(f"extra.{name}[{i}]: its name is not printable ASCII without spaces (as TVM and ONNX Runtime "
                           "write them)")
                continue
            if label is not None and label in seen.setdefault(name, set()):
                # one node or kernel listed twice (a zero-width space, a case, a Cyrillic letter apart) printed
                # '21 QLinearConv' for the model's 20 and a phantom row of the per-convolution table
                out.append(f"extra.{name}[{i}]: names a node or kernel an earlier row names (as written apart)")
                continue
            if label is not None:
                seen[name].add(label)
            if missing:
                out.append(f"extra.{name}[{i}]: holds no {missing[0]} (every row of a profile does)")
                continue
            for key, want in fields.items():
                if row.get(key) is not None:
                    out.append(_type_problem(f"extra.{name}[{i}].{key}", row[key], want))
            if name in PROFILES and is_number(row.get("calls")) and row["calls"] > MAX_ROW_CALLS:   # op_profile too (10^9)
                out.append(f"extra.{name}[{i}].calls: {row['calls']!r:.20}, more than the {MAX_ROW_CALLS} calls of one "
                           "kernel or node in one call of a model (the tables multiply a row's work by them)")
            if name in PROFILE_REQUIRED and is_number(row["seconds"]) and not row["seconds"] >= MIN_DURATION_S:
                out.append(f"extra.{name}[{i}].seconds: {row['seconds']!r}, not a time > 0 of at least "
                           f"{MIN_DURATION_S:g} s (the tables divide by it)")
    margins = (extra.get("agreement_set") or {}).get("margins") if isinstance(extra.get("agreement_set"), dict) else None
    if isinstance(margins, dict):   # the INT8 page prints each (a missing error_median stopped the build)
        # the flip margin may be null only where nothing flipped (two flips and a null stopped the build)
        out += [_type_problem(f"extra.agreement_set.margins.{key}", margins.get(key), want)
                for key, want in MARGINS.items() if key != "flip_margin_max" or margins.get(key) is not None
                or margins.get("flips")]
        quantiles = margins.get("margin_quantiles")
        out += [_type_problem(f"extra.agreement_set.margins.margin_quantiles[{q!r}]", quantiles.get(q), SECONDS)
                for q in ("5", "50") if isinstance(quantiles, dict)]
    for name in ("stats", "before_stats", "after_stats"):   # the graph page prints each call count
        calls = extra[name].get("calls") if isinstance(extra.get(name), dict) else None
        out += [_type_problem(f"extra.{name}.calls[{key!r:.40}]", n, COUNT)
                for key, n in (calls.items() if isinstance(calls, dict) else ())]
    kernels = (extra.get("rules") or {}).get("kernels") if isinstance(extra.get("rules"), dict) else None
    for kernel, info in (kernels or {}).items() if isinstance(kernels, dict) else ():
        if not isinstance(info, dict):
            out.append(f"extra.rules.kernels[{kernel!r:.40}]: expected an object, got {type(info).__name__}")
            continue
        if not isinstance(info.get("rule"), (str, type(None))):
            out.append(f"extra.rules.kernels[{kernel!r:.40}].rule: expected a rule's name, got "
                       f"{type(info['rule']).__name__}")
            continue
        if not (info.get("rule") is None or info.get("rule") in RULES):
            # 'convx' for 'conv': the claims read it as a convolution still, the page dropped the kernel from its row
            out.append(f"extra.rules.kernels[{kernel!r:.40}].rule: {str(info.get('rule'))[:40]!r} is not one of the "
                       f"project's rules ({', '.join(sorted(RULES))})")
            continue
        missing = [key for key in RULE_REQUIRED.get(info.get("rule"), ()) if info.get(key) is None]
        if missing:
            out.append(f"extra.rules.kernels[{kernel!r:.40}]: a {info['rule']} kernel without {missing[0]} (the "
                       "per-convolution tables read its tile)")
        # a convolution's sizes and tiles are >= 1 (kh 0 printed a row '512x512x0x3' at 0 GFLOPS)
        out += [_type_problem(f"extra.rules.kernels[{kernel!r:.40}].{key}", info[key], POSITIVE)
                for key in RULE_TILE if info.get(key) is not None]
        if info.get("ic_lanes") is not None:
            out.append(_type_problem(f"extra.rules.kernels[{kernel!r:.40}].ic_lanes", info["ic_lanes"], LANES))
    theo = extra.get("theoretical")
    if isinstance(theo, dict) and "gflops" in theo:
        if not (is_number(theo["gflops"]) and theo["gflops"] > 0):
            out.append(f"extra.theoretical.gflops: expected a number > 0, got {theo['gflops']!r:.40}")
    out += _counts_problems(extra) + _profile_total_problems(extra)
    return [p for p in out if p]


def _profile_total_problems(extra):
    """An operator profile's rows are ordered slowest first and are parts of its total: the total is > 0
    and their sum is not more than it (a total of 0 stopped the build dividing by it; a top row of twice
    the total published a kernel's share of 201 % and an Amdahl speed-up of -153x)."""
    for name in PROFILES:
        table = extra.get(name)
        times = [row.get("seconds") for row in table if isinstance(row, dict)] if isinstance(table, list) else []
        if all(is_number(t) for t in times) and any(a < b for a, b in zip(times, times[1:])):
            # the pages read the first row as the slowest: the rows reversed named a 3 % kernel the bottleneck
            return [f"extra.{name}: its rows are not ordered slowest first (the pages read the first as the slowest)"]
    rows, total = extra.get("op_profile"), extra.get("op_profile_total_s")
    if not rows or not isinstance(rows, list):
        return []
    parts = [row.get("seconds") for row in rows if isinstance(row, dict)]
    if not all(is_number(p) and p >= 0 for p in parts):
        return []   # the row check names them
    if not (is_number(total) and total > 0):
        return [f"extra.op_profile_total_s: {total!r:.40} is not a total > 0 of the {len(rows)} profile rows"]
    if math.fsum(parts) > total * (1 + PROFILE_SLACK):
        return [f"extra.op_profile: its rows add up to {math.fsum(parts):.6g} s, more than "
                f"extra.op_profile_total_s {total:.6g} s (each row is a part of the total)"]
    return []


PROFILE_LATENCY = 3.0
"""How far a kernel or node profile's rows may add up from the record's own median call (the committed
ones: 0.72x to 1.64x): ORT's conv nodes times 40 added up to 9.7x the call they profile and made TVM
'0.03x' of ORT on that convolution; divided by 40, 0.2x."""


def _profile_latency_problems(rec):
    """A kernel or node profile adds up to within PROFILE_LATENCY of the call it profiles (its rows are one
    call's operators)."""
    p50 = (rec.get("stats") or {}).get("p50") if isinstance(rec.get("stats"), dict) else None
    out = []
    for name in ONE_CALL_PROFILES:
        rows = rec["extra"].get(name)
        if not (isinstance(rows, list) and rows and is_number(p50) and p50 > 0):
            continue
        total = math.fsum(row["seconds"] for row in rows)
        if not 1 / PROFILE_LATENCY <= total / p50 <= PROFILE_LATENCY:
            out.append(f"extra.{name}: its rows add up to {total * 1e3:.4g} ms, {total / p50:.3g}x the record's own "
                       f"median call ({p50 * 1e3:.4g} ms): a profile of one call is within {PROFILE_LATENCY:g}x of it")
    return out


PROFILE_SLACK = 1e-3
"""The relative rounding by which an operator profile's rows may add up to more than its total."""


def rate_problems(rec):
    """The fastest sample of a record whose calls do a known work (the case's, else flops_per_call)
    must not exceed MAX_OPS_PER_S (schema checks it once the samples are plausible durations)."""
    claimed = rec["extra"].get("flops_per_call")
    work = flops_per_call(rec) or (claimed if is_number(claimed) and claimed > 0 else None)
    times = [s for s in rec["samples"] if is_number(s) and s > 0]
    if work is None or not times or rec["unit"] != "s":
        return []
    try:
        rate = float(work) / min(times)
    except OverflowError:
        rate = math.inf
    if rate <= MAX_OPS_PER_S:
        return []
    return [f"samples: a call of {float(work):.3g} operations in {min(times):g} s is {rate:.3g} operations a "
            f"second, more than the {MAX_OPS_PER_S:g} any machine can do (a forged time or case)"]


def _campaign_problems(camp, campaign_rules):
    """A tuning record's snapshot of its campaign (the campaign table prints its steps) holds to the rules
    of a campaign.json (``campaign_rules``: study.schema.campaign_problems, passed in by the schema,
    which imports this module), plus the flag ``continued``: a step's trials as text, its seconds as
    text or its kernel time of 1e308 s stopped the build in an internal error."""
    if not camp or campaign_rules is None:
        return []
    out = [f"extra.campaign.{p}" for p in campaign_rules(
        {k: v for k, v in camp.items() if k != "continued"}, camp.get("key"))]
    if not isinstance(camp.get("continued", False), bool):
        out.append(f"extra.campaign.continued: expected true or false, got {camp['continued']!r:.40}")
    return out


def key_problems(rec, label, max_chars):
    """The names inside a record (of its extra's, check's and case's objects: kernels, operators, counters) are
    labels (study.schema's ``label`` pattern, at most ``max_chars`` characters): no markup or invisible
    characters.  A key holding a link reached the history page's jumps table as a working link, and one
    of 300 000 characters a page."""
    out, stack = [], [(name, rec[name]) for name in ("extra", "check", "stats", "case") if isinstance(rec.get(name), (dict, list))]
    while stack and len(out) < 5:
        where, value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            if isinstance(value, dict) and not (len(key) <= max_chars and label.match(key)):
                out.append(f"{where}: the key {key[:60]!r}{'...' if len(key) > 60 else ''} is not a name (letters, digits "
                           f"and punctuation, no markup or invisible characters, at most {max_chars} characters)")
            elif isinstance(item, (dict, list)):
                stack.append((f"{where}.{key}" if isinstance(value, dict) else f"{where}[{key}]", item))
    return out


MAX_VALUES = 100_000
"""The most values (list rows and object fields, counted at every depth) a record's extra and check
may hold together: the committed records hold at most 2 891, a paired timing's samples at most
20 000.  Each is a claim compared with the earlier run (reportgen.data.claims): a list of 4 million
zeros took 42 s and 2.3 GB to compare."""


def size_problems(rec):
    """A record's extra, check and case beyond MAX_VALUES values, named (the case fields its id does not
    name are claims too: a list of 3 million rows there cost 2.3 GB)."""
    seen, stack = 0, [rec.get(name) for name in ("extra", "check", "case")]
    while stack:
        value = stack.pop()
        if isinstance(value, (dict, list)):
            seen += len(value)
            if seen > MAX_VALUES:
                return [f"extra: more than {MAX_VALUES} values in its extra, check and case (lists and objects at "
                        f"every depth; each is a claim compared between runs)"]
            stack.extend(value.values() if isinstance(value, dict) else value)
    return []


MAX_IR_LINES = 500
"""The most lines a pass demonstration's IR text may hold (the committed ones hold at most 58): the graph
page diffs the two texts, and a line diff is quadratic at worst (25 000 lines took 40 s a record)."""


REQUIRED = (("graph", "step", ("stats", "changed")),
            ("graph", "relay_pass", ("before_stats", "after_stats", "before_text", "after_text", "changed", "passes")),
            ("graph", "input", ("ir_text", "output", "output_dtype", "script_roundtrip", "target", "artifacts")),
            ("machine_peak", "isa", ("vector_fma_instructions",)),
            ("graph", "old_api", ("old_api", "era", "new_api")))
"""(family, a case field naming the kind of record, the extra fields an ok record of that kind holds): the
graph page reads each (a step without 'changed' stopped the build in a KeyError naming no file; a peak without its
FMA counts stopped the GEMM page)."""


PAIRED_PEERS = {("e2e", "tvm_rules"): "ort", ("e2e", "tvm_rules_tuned"): "ort",
                ("int8", "tvm_int8_rules"): "ort_qdq", ("int8", "tvm_fp32_rules"): "ort_fp32",
                ("int8", "tvm_int8_rules_avx2"): "tvm_fp32_rules_avx2"}
"""(family, engine) -> the peer engine it is timed with in alternating blocks (extra.paired_peer): the
experiments pair so, the pages name that peer beside the ratio, and the paired peer's median is held to
that engine's own record of the run (reportgen.data.searchfacts)."""
PAIRED_PEER_SPREAD = 2.0
"""How far a paired timing's peer median may be from the peer engine's own record of the run (either
way): the committed runs keep within 0.63x-1.55x (blocks of a few calls beside a long timing in a
process of its own); peer samples scaled x2.5 and recomputed printed TVM 0.40x ORT, unflagged.  The
experiments time the blocks again while their peer's median is beyond it (a machine too busy)."""


def _paired_engine_problems(rec):
    paired = rec["extra"].get("paired_peer")
    if not isinstance(paired, dict):
        return []
    want = PAIRED_PEERS.get((rec["experiment"], (rec.get("case") or {}).get("engine")))
    engine = paired.get("engine")
    if want is None:
        return [f"extra.paired_peer: the engine {(rec.get('case') or {}).get('engine')!r:.40} is timed with no peer "
                "in alternating blocks (study.work.PAIRED_PEERS)"]
    if engine != want:
        return [f"extra.paired_peer.engine: {engine!r:.40}, but this engine is timed in blocks with {want!r}"]
    return []


def _required_problems(rec):
    if rec.get("status") != "ok":
        return []
    extra, case = rec["extra"], rec.get("case") or {}
    if cases.timed(str(rec.get("id", ""))) and rec.get("metric") == "evidence" and not rec.get("samples"):
        return [f"metric: {rec['metric']!r:.40} with {len(rec['samples'])} samples, but an ok record of this case is a "
                "timing (its samples and stats: study/cases.py TIMED)"]
    out = [f"extra.{name}: missing (an ok {family} record with a case {kind!r} holds it)"
           for family, kind, names in REQUIRED if rec["experiment"] == family and kind in case
           for name in names if name not in extra] + _paired_engine_problems(rec)
    out += rewrite.problems(extra.get("rewrite"))
    if rec["experiment"] == "e2e_tune" and "model" in case:
        out += _kernel_lists("extra.coverage", extra.get("coverage"))
    out += _target_problems(extra)
    out += _isa_problems(extra, rec.get("run_id", ""))
    out += [p for p in [tails.problem(case, extra.get("schedule_params"))] if p]
    if rec["experiment"] == "graph":   # the pages print these as they are: 'None' and "['x']" were printed
        out += [p for p in [_type_problem("case.input", case["input"], NUMBER) if "input" in case else None]
                + [_type_problem(f"case.{k}", case[k], (str,)) for k in ("old_api", "new_api") if k in case] if p]
        if "old_api" in extra and "old_api" in case and extra["old_api"] != case["old_api"]:   # 'X replaces itself'
            out.append(f"extra.old_api: {extra['old_api']!r:.60} is not the API its case checks ({case['old_api']!r:.60})")
    tuning = extra.get("tuning")
    if rec["experiment"] in ("e2e", "int8") and isinstance(tuning, dict) and "unscheduled" in tuning:
        names = tuning["unscheduled"]
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names) and len(set(names)) == len(names)):
            out.append(f"extra.tuning.unscheduled: {names!r:.60} is not a list of distinct kernel names")
    return out


def _kernel_lists(where, coverage):
    """A search's coverage: the kernels it scheduled and those it did not, two lists of distinct names
    that share none (a repeated name and a kernel in both lists read '30/35 scheduled' for 21/21; a
    coverage without its lists stopped the e2e page in a KeyError)."""
    if not isinstance(coverage, dict):
        return [f"{where}: missing (an ok search record holds the kernels it scheduled and those it did not)"]
    lists = [coverage.get(k) for k in ("scheduled", "unscheduled")]
    for name, names in zip(("scheduled", "unscheduled"), lists):
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names) and len(set(names)) == len(names)):
            return [f"{where}.{name}: {names!r:.60} is not a list of distinct kernel names"]
    if set(lists[0]) & set(lists[1]):
        return [f"{where}: {sorted(set(lists[0]) & set(lists[1]))[0]!r:.60} is both scheduled and not"]
    return []


def extra_problems(rec, campaign_rules=None):
    """Problems of the extra fields a record's pages read: their types, flops_per_call a positive
    number equal (within FLOPS_TOLERANCE) to the work the case defines, and with ``campaign_rules``
    (the campaign.json contract) the campaign snapshot of a tuning record."""
    extra = rec["extra"]
    out = [p for p in (_type_problem(f"extra.{name}", extra[name], want)
                       for name, want in EXTRA_TYPES.items() if name in extra) if p]
    if extra.get("estimated_kernel_s") is not None:   # null: no estimate (a text stopped verify in a subtraction)
        out += [p for p in [_type_problem("extra.estimated_kernel_s", extra["estimated_kernel_s"], DURATION)] if p]
    if out:
        return out
    out = _nested_problems(extra) + _campaign_problems(extra.get("campaign"), campaign_rules) + _required_problems(rec)
    out += [] if out else scores.score_problems(extra) + scores.timing_problems(rec)
    out += [] if out else _profile_latency_problems(rec)
    out += [f"extra.{name}: {lines} lines, more than the {MAX_IR_LINES} a pass demonstration shows (the page diffs them)"
            for name in ("before_text", "after_text") if isinstance(extra.get(name), str)
            and (lines := len(extra[name].splitlines())) > MAX_IR_LINES]
    out.extend(f"extra.artifacts.{name!s:.40}: {problem}" for name, ref in (extra.get("artifacts") or {}).items()
               if (problem := ids.artifact_ref_problem(ref)))
    claimed = extra.get("flops_per_call")
    if claimed is not None and not claimed > 0:
        out.append(f"extra.flops_per_call: {claimed!r} is not a count of operations > 0")
    elif claimed is not None:
        work = flops_per_call(rec)
        if work is not None and abs(claimed - work) > FLOPS_TOLERANCE * work:
            out.append(f"extra.flops_per_call: {claimed!r:.40} is not the work its case defines ({work}); "
                       "GFLOPS are computed from the case")
    training, check = extra.get("training"), rec.get("check") or {}
    if isinstance(training, dict) and is_number(training.get("eval_accuracy")) and is_number(check.get("threshold")):
        reached = training["eval_accuracy"] >= check["threshold"]
        if check.get("passed") is not reached:   # a model trained to 0.5 said it passed its 0.9
            out.append(f"check.passed: {check.get('passed')!r:.10}, but the evaluation accuracy "
                       f"{training['eval_accuracy']:.4g} is {'at or above' if reached else 'below'} the threshold "
                       f"{check['threshold']:.4g}")
    if rec["experiment"] in GEMM_FAMILIES + ("machine_peak",) and rec["samples"] and flops_per_call(rec) is None:
        out.append("case: does not define the work of a call (GEMM: m, n, k > 0; machine_peak: isa, dtype, "
                   "iters, threads and extra.accumulators)")
    return out

# FMA pipes per core and their width in bits, by LLVM CPU name. This cannot be
# read from CPUID, so it is an assumption taken from the vendors' optimization
# manuals; the measured loop is what we trust.
FMA_PIPES = {
    "znver2": (2, 256), "znver3": (2, 256), "znver4": (2, 256), "znver5": (2, 512),
    "haswell": (2, 256), "broadwell": (2, 256), "skylake": (2, 256), "alderlake": (2, 256),
    "skylake-avx512": (2, 512), "cascadelake": (2, 512), "icelake-server": (2, 512),
    "sapphirerapids": (2, 512), "emeraldrapids": (2, 512), "graniterapids": (2, 512),
}


def theoretical(env, dtype, isa_bytes, threads):
    """clock × lanes × 2 (FMA) × pipes × threads, with every input named."""
    mhz = env["cpu_mhz"]["value"]
    pipes, pipe_bits = FMA_PIPES.get(env["tvm_target"].get("mcpu", ""), (None, None))
    if mhz is None or pipes is None:
        return None
    lanes_per_pipe = min(pipe_bits, isa_bytes * 8) // (8 * ELEMENT_BYTES[dtype])
    flops_per_cycle = lanes_per_pipe * 2 * pipes
    return {
        "gflops": mhz / 1000.0 * flops_per_cycle * threads,
        "clock_ghz": mhz / 1000.0, "clock_source": env["cpu_mhz"]["source"],
        "fma_pipes": pipes, "pipe_bits": pipe_bits, "lanes_per_pipe": lanes_per_pipe,
        "threads": threads,
        "formula": f"{mhz / 1000.0:.3f} GHz × {lanes_per_pipe} lanes × 2 (FMA) × {pipes} pipes × {threads}",
        "assumption": "FMA pipe count and width from the vendor's manual for "
                      f"mcpu={env['tvm_target'].get('mcpu')}",
    }


ISA_FLAGS = {"avx512": "avx512f", "avx512_vnni": "avx512_vnni", "avx2": "avx2", "avx": "avx"}
"""The simd flag a machine reports for each vector ISA a record's kernel may name (study.identity.kernel_isa)."""


def machine_fit_problems(rec, env):
    """An ok record ran what its machine has: a kernel of a vector ISA its simd_flags name (a NumPy record
    of an AVX-512 BLAS kernel was published for a machine of SSE2 alone) and no more threads than its
    logical CPUs."""
    if rec.get("status") != "ok" or not isinstance(env, dict):
        return []
    out, extra = [], rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
    flags = env.get("simd_flags") if isinstance(env.get("simd_flags"), list) else []
    try:
        isa = identity.kernel_isa(extra)
    except (AttributeError, TypeError):
        isa = None   # an extra of another shape is refused by its own check
    if isa in ISA_FLAGS and ISA_FLAGS[isa] not in flags:
        out.append(f"extra: its kernel ran {isa} code, but its machine's simd_flags name no {ISA_FLAGS[isa]}")
    threads, cores = (rec.get("case") or {}).get("threads"), env.get("logical_cores")
    if is_number(threads) and is_number(cores) and threads > cores:
        out.append(f"case.threads: {threads}, more than its machine's {cores} logical CPUs")
    return out


def peak_problems(rec, env):
    """A peak record measures a vector loop its machine runs (its simd_flags), and its theoretical peak
    is the formula over its run's environment and its case, as
    the experiment computes it (experiments/peak.py imports it from here): a record that divided its
    stated GFLOPS by ten, its formula text kept, published 1242 % of the theoretical peak."""
    if rec.get("experiment") != "machine_peak" or rec.get("status") != "ok" or not isinstance(env, dict):
        return []
    case, extra = rec.get("case") or {}, rec.get("extra") or {}
    flags = env.get("simd_flags") if isinstance(env.get("simd_flags"), list) else []
    runs_on = {"avx2": "fma", "avx512": "avx512f"}   # the vector loops experiments/peak.py measures
    if case.get("isa") not in runs_on or runs_on[case["isa"]] not in flags:
        # a peak of an ISA never measured on the machine (avx, 5x faster) took over every peak figure
        return [f"case.isa: {case.get('isa')!r:.20} is not a vector loop the peak measures on this machine "
                f"({', '.join(i for i, f in runs_on.items() if f in flags) or 'none'}: its simd_flags)"]
    claim = extra.get("theoretical")
    try:
        want = theoretical(env, case["dtype"], VECTOR_BYTES[case["isa"]], case["threads"])
    except (KeyError, TypeError, AttributeError):
        return []   # the case or the environment is refused by its own check
    if want is None:
        return [] if claim is None else ["extra.theoretical: the environment names no clock or no FMA pipes "
                                         f"for mcpu={(env.get('tvm_target') or {}).get('mcpu')!r:.40}, so no formula gives one"]
    if not isinstance(claim, dict) or claim.get("formula") != want["formula"] or not is_number(claim.get("gflops")) \
            or abs(claim["gflops"] - want["gflops"]) > 1e-9 * want["gflops"]:
        return [f"extra.theoretical: not the formula over this run's environment ({want['formula']} = "
                f"{want['gflops']:.6g} GFLOPS)"]
    return []

