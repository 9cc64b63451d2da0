"""INT8 on today's TVM: our own integer path in Relax, beside ONNX Runtime and TFLite int8.

Per model (the digits CNN trained here on scikit-learn's digits, and the
end-to-end study's seeded networks):

1. FP32 reference: the Keras model's logits on the evaluation set.
2. Calibration on a set kept apart from evaluation; every calibration method
   and activation scheme of :mod:`experiments.int8.quantize` rewritten,
   compiled and scored (accuracy on digits, agreement with FP32 on every
   model), with operator coverage and the conversions left; FP32 vs INT8 per
   layer for each configuration.
3. Timed engines, each checked first, every sample one request:
   ``tvm_fp32`` (C: graph pipeline, untuned), ``tvm_int8`` (E: our integer
   program, same pipeline), ``tvm_fp32_tuned`` (D: MetaSchedule database of
   the e2e_tune family when it has one for this model, else tuned here),
   ``tvm_int8_tuned`` (F: the integer program tuned here), ``tvm_qdq`` (ONNX
   Runtime's QDQ model imported into TVM: the "QDQ in float" baseline),
   ``ort_fp32`` / ``ort_qdq`` and ``tflite_fp32`` / ``tflite_int8``.
4. For TVM's integer kernels, the instructions in the hottest kernel's
   assembly: ``vpdpbusd`` (AVX-512 VNNI / AVX-VNNI), ``vpmaddubsw`` /
   ``vpmaddwd`` (AVX2), FMA, with the CPU's VNNI flags beside them.

Tuning databases are run artifacts; a later run reuses one (copying it into
its own artifacts) when the tuning key -- model, variant, quantization,
budget, input size, target, TVM version -- is unchanged.
"""
import hashlib
import json
import re
import shutil
import time
from pathlib import Path

import numpy as np

from experiments import harness, targets
from experiments.e2e import peer
from study import cases, leftovers, searchlog, work
from study.family import Family

FAMILY = Family(name="int8", timeout_s={"quick": 1800, "standard": 7200, "full": 7200},
                uses=["e2e_tune"],  # D (FP32 tuned) reuses the e2e_tune database of the same model
                params=("agree_engines", "avx2_models", "budget_s", "default", "engines", "epochs", "fp32_tuned_from_e2e", "input_size",
                        "float_kinds", "int8_min_top1", "int8_tolerance", "methods", "min_fp32_accuracy", "min_repeat",
                        "models", "n_agree", "n_calib", "n_calib_peers", "n_eval", "n_layer", "node_profile_models", "ort_reduce_range",
                        "paired_blocks", "paired_calls", "repeat", "rules_trials", "schemes", "seed", "tolerance", "tune",
                        "untuned_models", "vnni", "warmup"),
                # timing, which cases run, what a search decides; a rule engine's candidates per kernel
                claims_of={"warmup": [], "repeat": [], "min_repeat": [], "budget_s": [], "paired_blocks": [], "paired_calls": [],
                           "engines": [], "models": [], "node_profile_models": [], "tune": [], "untuned_models": [],
                           "fp32_tuned_from_e2e": [], "rules_trials": ["rules"]})

ENGINES = ("tvm_fp32", "tvm_int8", "tvm_fp32_tuned", "tvm_int8_tuned", "tvm_fp32_rules", "tvm_int8_rules",
           "tvm_fp32_rules_avx2", "tvm_int8_rules_avx2",
           "tvm_qdq", "ort_fp32", "ort_qdq", "tflite_fp32", "tflite_int8")
GROUP = cases.ENGINE_GROUPS["int8"]   # the seed's groups (study/cases.py: records are checked against it)
INT8_ENGINES = {"tvm_int8", "tvm_int8_tuned", "tvm_int8_rules", "tvm_int8_rules_avx2", "tvm_qdq", "ort_qdq", "tflite_int8"}
# by rule, no search (experiments/e2e/nchwc.py, experiments/int8/vnni_rules.py): FP32 in NCHWc with the
# register-tiled micro-kernel, INT8 channels-last with the same tile and vpdpbusd as its multiply-add
RULE_ENGINES = ("tvm_fp32_rules", "tvm_int8_rules", "tvm_fp32_rules_avx2", "tvm_int8_rules_avx2")
# the rule engines again, compiled for an AVX2 target (no AVX-512: ymm FMAs, vpmaddubsw/vpmaddwd with
# 7-bit weights) and run on this host, for the models in ``avx2_models`` -- the AVX2 program measured
# on a host that has more; skipped where the host's own target is AVX2 already (the rule engines are it)
AVX2_ENGINES = ("tvm_fp32_rules_avx2", "tvm_int8_rules_avx2")
AVX2_MCPU = "znver3"     # AVX2 + FMA, no AVX-512: as compiled for the Zen 3 machine of the study
# the peers, timed in a process of their own (experiments/e2e/peer.py): (peer kind, model file)
PEER_FILES = {"ort_fp32": ("ort", "onnx"), "ort_qdq": ("ort", "qdq"), "tflite_fp32": ("tflite", "tflite"),
              "tflite_int8": ("tflite", "tflite_int8")}
TRAIN_ID = cases.case_id("int8", model="digits_cnn", train=True)   # the evidence that the FP32 digits CNN learned
# the rule engines timed in alternating blocks with the peer they are judged against (when the
# profile sets paired_blocks): (peer engine, the model file it loads)
# every kernel / node profiled, for the models in ``node_profile_models`` (experiments/int8/profiles.py)
PROFILED = ("tvm_int8_rules", "ort_qdq")
PAIRED_PEER = {engine: (work.PAIRED_PEERS[("int8", engine)], model_file) for engine, model_file in
               (("tvm_int8_rules", "qdq"), ("tvm_fp32_rules", "onnx"), ("tvm_int8_rules_avx2", "fp32_rules_avx2"))}
DOT_INSTRUCTIONS = searchlog.INSTRUCTIONS


def _cpu_isa():
    """VNNI and AVX2 flags of this CPU (from /proc/cpuinfo)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        flags = set(re.search(r"^flags\s*:\s*(.*)$", text, re.M).group(1).split())
    except (OSError, AttributeError):
        flags = set()
    return {"avx2": "avx2" in flags, "avx512_vnni": "avx512_vnni" in flags, "avx_vnni": "avx_vnni" in flags}


# ---------------------------------------------------------------------------
# Subjects
# ---------------------------------------------------------------------------


def _calibration_images(n, seed, size):
    """Calibration inputs for the seeded ImageNet networks: ``n`` seeded crops (``seed + 1``) of
    scikit-image pictures that neither the evaluation set (``sample_inputs``: four whole pictures,
    then noise) nor the agreement set (``crop_inputs``' default pictures) ever shows.

    Photograph-like crops set activation ranges the way real inputs do; the earlier set (the four
    pictures mirrored, then uniform noise) put most of its weight on noise and cost top-1 agreement.
    """
    from experiments.e2e import models
    return models.crop_inputs(n, seed + 1, size, models.CALIBRATION_PICTURES)[0]


def _float_kinds(p, name):
    """The linear kinds the profile keeps in float for ``name`` (``float_kinds``: per model, with a
    ``default``; missing: none)."""
    kinds = p.get("float_kinds") or {}
    return tuple(kinds.get(name, kinds.get("default", ())))


def _subject(h, name, p):
    """The model with its calibration and evaluation data; trains the digits CNN."""
    from experiments.int8 import digits
    seed = p["seed"]
    if name == "digits_cnn":
        data = digits.splits(seed)
        model = digits.build_cnn(seed)

        def train():
            info = digits.train(model, data, epochs=p["epochs"], seed=seed)
            h.note(TRAIN_ID, accuracy=float(info["eval_accuracy"]), train_s=float(info["seconds"]))
            return ({"reference": "scikit-learn digits evaluation labels", "max_abs_err": None, "max_rel_err": None,
                     "threshold": p["min_fp32_accuracy"], "passed": bool(info["eval_accuracy"] >= p["min_fp32_accuracy"])},
                    {"training": info})

        h.evidence(TRAIN_ID, {"model": name, "seed": seed, "epochs": p["epochs"]}, train,
                   mismatch="the FP32 digits CNN did not learn")
        calib = [x[None] for x in data["x_calib"]]
        return {"model": model, "shape": (1, *data["x_eval"].shape[1:]), "calib": calib,
                "calib_source": {"images": len(calib), "source": "scikit-learn digits calibration split"},
                "eval_x": data["x_eval"], "eval_y": data["y_eval"], "input_size": data["x_eval"].shape[1]}
    from experiments.e2e import models
    size = p["input_size"]
    model = models.build(name, seed=seed, input_size=size)
    calib = [x[None] for x in _calibration_images(p["n_calib"], seed, size)]
    agree_x = models.crop_inputs(int(p["n_agree"]), seed=seed, input_size=size)[0] if p["n_agree"] else None
    source = {"images": len(calib), "seed": seed + 1, "pictures": list(models.CALIBRATION_PICTURES),
              "source": "seeded crops of scikit-image pictures outside the agreement set"}
    return {"model": model, "shape": (1, size, size, 3), "calib": calib, "eval_y": None, "input_size": size,
            "calib_source": source,
            "eval_x": models.sample_inputs(p["n_eval"], seed=seed, input_size=size), "agree_x": agree_x}


def _logits(runner, xs):
    return np.concatenate([runner(x[None]) for x in xs])


def _score(logits, reference, labels):
    """Agreement with the FP32 reference, plus accuracy when labels exist."""
    from experiments.e2e import engines
    out = engines.agreement(logits, reference)
    if labels is not None:
        out["accuracy"] = float(np.mean(logits.argmax(1) == labels))
        out["fp32_accuracy"] = float(np.mean(reference.argmax(1) == labels))
    return out


# ---------------------------------------------------------------------------
# TVM builds
# ---------------------------------------------------------------------------


def _compile(mod, target):
    import tvm
    from tvm import relax
    return tvm.compile(mod, target, relax_pipeline=relax.get_default_pipeline(target))


def _const_bytes(mod):
    """Bytes of the constants (weights, biases, requantization multipliers) in main."""
    from experiments.int8 import quantize as Q
    total = 0
    for _, value in Q.bindings(mod):
        for arg in getattr(value, "args", []):
            if Q._is_const(arg):
                total += Q._const_array(arg).nbytes
    return total


def asm_evidence(executable, hottest):
    """Instruction counts in the hottest kernel and in all kernels; and the hottest kernel's assembly."""
    asm = executable.mod.imports[0].inspect_source("asm")
    per_func, current, hot_lines = {}, None, []
    for line in asm.splitlines():
        label = searchlog.ASM_LABEL.match(line)
        if label:
            current = label.group(1)
        if hottest and current and (current == hottest or current.startswith(hottest + "_compute")):
            hot_lines.append(line)
        if current and searchlog.instruction(line):
            per_func.setdefault(current, []).append(line)
    per_func = {name: searchlog.instruction_counts(lines, DOT_INSTRUCTIONS) for name, lines in per_func.items()}
    total = {ins: sum(c.get(ins, 0) for c in per_func.values()) for ins in DOT_INSTRUCTIONS}
    hot = {}
    for name, counts in per_func.items():
        if hottest and (name == hottest or name.startswith(hottest + "_compute")):
            for ins, n in counts.items():
                hot[ins] = hot.get(ins, 0) + n
    kernels_with = {ins: sum(1 for c in per_func.values() if c.get(ins)) for ins in DOT_INSTRUCTIONS}
    return ({"hottest_kernel": hottest, "hottest": {i: hot.get(i, 0) for i in DOT_INSTRUCTIONS}, "all_kernels": total,
             "kernels_with": kernels_with},
            "\n".join(hot_lines) + "\n")


def case_id(model, size, **fields):
    """Record id of one INT8 case; the input size is part of it (another size is another workload)."""
    return cases.case_id("int8", model=model, size=size, **fields)


def _tuning_key(case):
    import tvm
    return hashlib.sha256(json.dumps([case, tvm.__version__], sort_keys=True).encode()).hexdigest()[:16]


def _e2e_tuning(h, name, threads, p):
    """The e2e_tune record of this model at batch 1 (same input size and seed), or None."""
    from experiments import e2e_tune
    return h.upstream_record("e2e_tune", e2e_tune.case_id(name, 1, threads, p["input_size"]),
                             accept=lambda r: r["case"]["input_size"] == p["input_size"] and r["case"]["seed"] == p["seed"])


def _tuned_database(h, name, variant, mod, target, p, threads, op_seconds, quant, size, reuse=True):
    """(database dir, reference, tuning info) for one model variant; tunes only when nothing fits.

    A database is reused only when its tuning key matches: the tuning settings, the module itself
    (its structural hash covers shapes, weights and quantization parameters), the target, the TVM
    version and the family's code and environment fingerprint.  ``reuse=False`` forces a new tuning
    (the caller found that a reused database scheduled fewer kernels than its record says).
    """
    import tvm_ffi

    from experiments.e2e import tuning
    tune = p["tune"][name] if name in p["tune"] else p["tune"]["default"]
    if variant == "fp32" and name in p.get("fp32_tuned_from_e2e", []):
        up = _e2e_tuning(h, name, threads, p)
        if up is not None:
            ref = up["extra"]["artifacts"]["database"]
            return h.artifact_path(ref), ref, {"source": "e2e_tune", "record": up["id"], "run_id": up["run_id"],
                                               "trials": up["extra"]["tuning"]["measured"],
                                               "seconds": up["extra"]["tuning"]["seconds"],
                                               "expected_scheduled": len(up["extra"]["coverage"]["scheduled"])}
    # the packed VNNI kernels are searched without the vectorize annotation around the tensorized
    # block (tuning.search_space); the FP32 program and a non-VNNI integer program keep the default space
    vnni_space = variant == "int8" and not tune.get("vectorize_vnni", True) and vnni_layout(p, target)
    vectorize = not vnni_space
    key_case = {"model": name, "variant": variant, "quant": quant, "budget": tune["budget"],
                "per_iter": tune["per_iter"], "min_trials": tune["min_trials"],
                "retry_rounds": tune.get("retry_rounds", tuning.RETRY_ROUNDS), "vectorize": vectorize, "seed": p["seed"],
                "input_size": size, "target": str(target), "module": str(tvm_ffi.structural_hash(mod)),   # tensor contents included
                "code_and_environment": h.base_fingerprint}
    key = _tuning_key(key_case)
    work_dir, ref = h.artifact(f"tune-{name}-{variant}")
    old = h.previous.get(case_id(name, size, engine=f"tvm_{variant}_tuned", batch=1, threads=threads))
    if reuse and old and old["extra"].get("tuning", {}).get("key") == key:
        src = h.artifact_path(old["extra"]["tuning"]["database"])
        if (src / "database_tuning_record.json").exists():
            shutil.copytree(src, work_dir, symlinks=True, dirs_exist_ok=True)   # a link is copied as a link, never read
            h.say(f"{name}/{variant}: tuning database reused from run {old['extra']['tuning']['run_id']}")
            return work_dir, ref, dict(old["extra"]["tuning"], database=ref, reused_from=old["run_id"],
                                       expected_scheduled=old["extra"]["tuning"].get("scheduled", 0))
    shutil.rmtree(work_dir, ignore_errors=True)
    work_dir.mkdir(parents=True)
    tuned_run = tuning.tune_module(mod, target, work_dir, op_seconds, budget=tune["budget"], per_iter=tune["per_iter"],
                                   min_trials=tune["min_trials"], threads=threads, seed=p["seed"],
                                   retry_rounds=key_case["retry_rounds"], vectorize=vectorize,
                                   progress=h.say)
    summary = tuned_run["trials"]
    return work_dir, ref, {"source": "int8 family", "key": key, "run_id": h.run_id, "trials": summary["measured"],
                           "valid": summary["valid"], "failures": summary["failures"],
                           "seconds": round(tuned_run["seconds"], 3), "tasks": len(tuned_run["tasks"]),
                           "tensorized": tensorized_summary(tuned_run["per_task"]),
                           "retry_rounds": key_case["retry_rounds"], "vectorize": vectorize,
                           "retried": {t: row["retry_rounds"] for t, row in tuned_run["per_task"].items()
                                       if row.get("retry_rounds")}}


def tensorized_summary(per_task):
    """Tasks MetaSchedule tiled onto a tensor intrinsic ("Tensorizing with ..." in its task logs)."""
    tasks = sorted(t for t, row in per_task.items() if row.get("tensorized"))
    intrinsics: dict[str, int] = {}
    for task in tasks:
        for name, n in per_task[task]["tensorized"].items():
            intrinsics[name] = intrinsics.get(name, 0) + n
    return {"tasks": tasks, "count": len(tasks), "tuned_tasks": len(per_task), "log_lines": intrinsics}


def vnni_layout(p, target):
    """Whether the integer program uses the packed VNNI kernels (the target has avx512vnni and the
    profile does not turn it off with ``vnni: false``); registers the byte-operand intrinsic then."""
    from experiments.gemm import vnni
    if packed_layout(p, target) != "vnni":
        return False
    vnni.override_shipped()
    return True


def packed_layout(p, target):
    """The multiply-add of the packed 16 x 4 integer kernels on ``target``: "vnni" (``vpdpbusd``),
    "avx2" (``vpmaddubsw``/``vpmaddwd``, 7-bit weights), or None (the profile's ``vnni: false`` or
    neither ISA: the integer program is legalized NCHW)."""
    from experiments.gemm import vnni
    from experiments.int8 import avx2_dot
    if not p.get("vnni", True):
        return None
    if vnni.target_has_vnni(target):
        return "vnni"
    return "avx2" if avx2_dot.target_has_avx2(target) else None


# ---------------------------------------------------------------------------
# The study
# ---------------------------------------------------------------------------


def _n_layer(p, name):
    """Evaluation images used for the per-layer comparison of one model."""
    return int(p["n_layer"].get(name, p["n_layer"]["default"]))


def _rounding(h, name, mod, taps, quant):
    """``weight_max -> rounded weights`` for the rewrite (``default.rounding: gptq``; otherwise None,
    rounding to nearest), each computed once, and the summary of every one computed (for the record)."""
    done: dict = {}

    def rounded(weight_max):
        if quant.get("rounding") != "gptq":
            return None
        if weight_max not in done:
            from experiments.int8 import rounding
            done[weight_max] = rounding.round_weights(mod, taps, weight_max)
            info = done[weight_max][1]
            h.say(f"{name}: weights to +-{weight_max} rounded with error feedback (GPTQ) in {info.layers} layers; "
                  f"layer output error {info.error_ratio_median:.3f} (median), {info.error_ratio_max:.3f} (max) "
                  f"of rounding to nearest, on the calibration inputs")
        return done[weight_max][0]
    return rounded, done


def _quant_configs(h, name, subj, mod, target, taps, reference, p, eval_taps, use_vnni=False, weight_max=127,
                   rounded=None):
    """Every calibration method x scheme: rewrite, compile, score, per-layer report (evidence)."""
    import tvm

    from experiments.e2e import engines
    from experiments.int8 import quantize as Q
    chosen = None
    for method in p["methods"]:
        for scheme in p["schemes"]:
            made = {}

            def score_config():
                acts = Q.calibrate(taps, method, scheme)
                qmod, report = Q.rewrite(mod, acts, vnni=use_vnni, weight_max=weight_max,
                                         float_kinds=_float_kinds(p, name), rounded=rounded)
                made.update(qmod=qmod, report=report)
                runner = engines.prepare_tvm(_compile(qmod, target), p["threads"], "E")
                score = _score(_logits(runner, subj["eval_x"]), reference, subj["eval_y"])
                dmod, _, order = Q.rewrite(mod, acts, debug=True, vnni=use_vnni, weight_max=weight_max,
                                           float_kinds=_float_kinds(p, name), rounded=rounded)
                dvm = engines.prepare_tvm(_compile(dmod, target), p["threads"], "E").handle
                outs = [dvm["main"](tvm.runtime.tensor(x[None])) for x in subj["eval_x"][:_n_layer(p, name)]]
                int8_taps = {n: np.concatenate([o[i + 1].numpy() for o in outs]) for i, n in enumerate(order)}
                layers = Q.layer_report(eval_taps, int8_taps, Q.shared_scales(mod, acts), order)
                passed = score["max_rel_err"] <= p["int8_tolerance"] and score["top1_agree"] >= p["int8_min_top1"]
                acc = {"accuracy": score["accuracy"], "fp32_accuracy": score["fp32_accuracy"]} if "accuracy" in score else {}
                h.note(cid, rel_err=score["max_rel_err"], top1=score["top1_agree"], **acc,
                       quantize=int(report["quantize"]), dequantize=int(report["dequantize"]))
                return ({"reference": "FP32 Keras logits on the evaluation set", "max_abs_err": score["max_abs_err"],
                         "max_rel_err": score["max_rel_err"], "threshold": p["int8_tolerance"], "passed": bool(passed)},
                        {"score": score, "rewrite": {k: v for k, v in report.items() if k != "groups"},
                         "groups": report["groups"], "layers": layers, "layer_images": _n_layer(p, name),
                         "weights_bytes": _const_bytes(qmod), "fp32_weights_bytes": _const_bytes(mod)})

            cid = case_id(name, subj["input_size"], quant=f"{method}-{scheme}")
            h.evidence(cid, {"model": name, "method": method, "scheme": scheme, "seed": p["seed"],
                             "input_size": subj["input_size"]}, score_config, mismatch="INT8 logits too far from FP32")
            if method == p["default"]["method"] and scheme == p["default"]["scheme"]:
                chosen = (made["qmod"], made["report"])
    return chosen


def _runner(engine, ctx, p, threads, target):
    """A runner for one engine and what it rests on (size, coverage, tuning, assembly)."""
    from experiments.e2e import engines, tuning
    from experiments.int8 import peers, rule_engines
    paths, info = ctx["paths"], {}
    needs = {"ort_qdq": "qdq", "tvm_qdq": "qdq", "tflite_int8": "tflite_int8"}.get(engine)
    if needs and needs not in paths:
        raise RuntimeError(ctx["errors"][needs])
    if engine == "ort_fp32":
        return engines.prepare_ort(paths["onnx"], threads), {"bytes": Path(paths["onnx"]).stat().st_size}
    if engine == "ort_qdq":
        return engines.prepare_ort(paths["qdq"], threads), {"bytes": Path(paths["qdq"]).stat().st_size,
                                                            "quantizer": ctx["qdq_info"],
                                                            "ort_coverage": peers.ort_coverage(paths["qdq"])}
    if engine == "tflite_fp32":
        return engines.prepare_tflite(paths["tflite"], threads), {"bytes": Path(paths["tflite"]).stat().st_size}
    if engine == "tflite_int8":
        return engines.prepare_tflite(paths["tflite_int8"], threads), {"bytes": Path(paths["tflite_int8"]).stat().st_size,
                                                                       "converter": ctx["tflite_info"]}
    t0 = time.perf_counter()
    if engine in RULE_ENGINES:
        mod = ctx["fp32_mod"] if engine == "tvm_fp32_rules" else ctx["int8_mod"]
        executable, info["rules"] = rule_engines.compile_rules(ctx["h"], engine, ctx, target, threads,
                                                               rule_engines.trials_for(p, ctx["name"]))
    elif engine == "tvm_qdq":
        mod = engines.tvm_import_onnx(paths["qdq"], ctx["shape"])
        counts = peers.relax_op_counts(mod)
        info["relax_ops"] = dict(counts["ops"])
        info["relax_compute_inputs"] = counts["compute_inputs"]
        executable = _compile(mod, target)
    elif engine in ("tvm_fp32", "tvm_int8"):
        mod = ctx["fp32_mod"] if engine == "tvm_fp32" else ctx["int8_mod"]
        executable = _compile(mod, target)
    else:
        variant = "fp32" if engine == "tvm_fp32_tuned" else "int8"
        mod = ctx["fp32_mod"] if variant == "fp32" else ctx["int8_mod"]
        args = (ctx["h"], ctx["name"], variant, mod, target, p, threads, ctx["op_seconds"][variant],
                ctx["quant"] if variant == "int8" else None, ctx["input_size"])
        db, ref, tinfo = _tuned_database(*args)
        executable, coverage = tuning.compile_tuned(mod, target, db)
        expected = tinfo.pop("expected_scheduled", None)
        if expected is not None and len(coverage["scheduled"]) < expected:
            # A database that fits fewer kernels than when it was made does not belong to this module.
            ctx["h"].say(f"{ctx['name']}/{variant}: the database from run {tinfo.get('run_id')} scheduled "
                         f"{len(coverage['scheduled'])} of the {expected} kernels its record names: refused")
            if tinfo.get("source") == "e2e_tune":
                raise RuntimeError(f"e2e_tune database of run {tinfo.get('run_id')} schedules "
                                   f"{len(coverage['scheduled'])} of {expected} kernels for this module")
            ctx["h"].say(f"{ctx['name']}/{variant}: re-tuning")
            db, ref, tinfo = _tuned_database(*args, reuse=False)
            executable, coverage = tuning.compile_tuned(mod, target, db)
        info["tuning"] = dict(tinfo, database=ref, scheduled=len(coverage["scheduled"]),
                              unscheduled=coverage["unscheduled"])
    info["compile_seconds"] = time.perf_counter() - t0
    if engine != "tvm_qdq":
        info["weights_bytes"] = _const_bytes(mod)
    info["tuned"] = "tuning" in info
    info["target"] = str(target)
    runner = engines.prepare_tvm(executable, threads, GROUP[engine])
    return runner, dict(info, executable=executable)


def _avx2_skip(name, p, target):
    """Why an AVX2 engine does not run for ``name`` here, or None."""
    from experiments.gemm import tvm_ladder
    if name not in p["avx2_models"]:
        return "the profile lists this model not in avx2_models"
    if tvm_ladder.target_isa(target) != "avx512":
        return "the host's own target has no AVX-512: its rule engines are the AVX2 program already"
    if packed_layout(p, target) is None:
        return "the profile turns the packed integer kernels off (vnni: false)"
    return None


def _measure(h, ctx, engine, p, threads, target):
    from experiments.e2e import engines
    name = ctx["name"]
    case = {"model": name, "engine": engine, "group": GROUP[engine], "batch": 1, "threads": threads,
            "input_size": ctx["input_size"], "seed": p["seed"], "quant": ctx["quant"] if engine in INT8_ENGINES else None}
    cid = case_id(name, ctx["input_size"], engine=engine, batch=1, threads=threads)
    x = ctx["eval_x"][:1]
    scored = {}

    def build():
        try:
            runner, info = _runner(engine, ctx, p, threads, target)
        except Exception as exc:  # noqa: BLE001 - a refusal to import/compile is a finding
            raise harness.CaseFailed("compile_failed", f"{type(exc).__name__}: {exc}"[:2000]) from exc
        return runner, info, info.pop("executable", None)

    def check(built):
        runner, info, _ = built
        t0 = time.perf_counter()
        runner(x)
        info["cold_seconds"] = time.perf_counter() - t0
        score = scored["score"] = _score(_logits(runner, ctx["eval_x"]), ctx["reference"], ctx["eval_y"])
        if ctx["agree_x"] is not None and engine in p["agree_engines"]:
            from experiments.e2e import engines as E
            logits = _logits(runner, ctx["agree_x"])
            scored["agree"] = dict(E.agreement(logits, ctx["agree_ref"]), margins=E.margins(logits, ctx["agree_ref"]),
                                   inputs=len(ctx["agree_x"]), source="crops of scikit-image pictures "
                                   "(experiments/e2e/models.crop_inputs), FP32 Keras logits as reference")
        tol = p["int8_tolerance"] if engine in INT8_ENGINES else p["tolerance"]
        min_top1 = p["int8_min_top1"] if engine in INT8_ENGINES else 1.0
        # top-1 on the agreement set where the engine ran it (hundreds of crops), else on the few
        # evaluation images, half of them noise that photo-calibrated networks were never shown
        top1, where = ((scored["agree"]["top1_agree"], "agreement set") if "agree" in scored
                       else (score["top1_agree"], "evaluation set"))
        return {"reference": f"FP32 Keras logits on the evaluation set (and top-1 agreement ≥ {min_top1} "
                f"on the {where})", "max_abs_err": score["max_abs_err"], "max_rel_err": score["max_rel_err"],
                "threshold": tol, "passed": bool(score["max_rel_err"] <= tol and top1 >= min_top1)}

    def extra(built):
        runner, info, _ = built
        out = {"engine": runner.metadata(), "score": scored["score"], "isa": ctx["isa"], **info}
        if "agree" in scored:
            out["agreement_set"] = scored["agree"]
        if engine in AVX2_ENGINES:
            out["avx2_target"] = {"mcpu": AVX2_MCPU, "why": "the AVX2 program (no AVX-512, 7-bit weights for "
                                  "vpmaddubsw) compiled and run on this host, beside the host's own"}
        if engine in ("tvm_int8", "tvm_int8_tuned", "tvm_int8_rules", "tvm_int8_rules_avx2", "tvm_fp32_tuned"):
            out["rewrite"] = (None if engine == "tvm_fp32_tuned" else
                              ctx["rewrite_avx2"] if engine == "tvm_int8_rules_avx2" else ctx["rewrite"])
        return out

    def call(built):
        runner = built[0]
        return lambda: runner(ctx["eval_x"][:1])

    def after(built, out):
        runner, _, executable = built
        if own or paired:
            out["timing_process"] = peer.timing_process(own or paired)
        if paired:
            out["paired_peer"] = peer.paired_peer(PAIRED_PEER[engine][0], paired)
            h.say(peer.paired_line(cid, PAIRED_PEER[engine][0], paired))
        if engine in PROFILED and name in p.get("node_profile_models", []):
            from experiments.int8 import profiles
            if engine == "ort_qdq":
                profiles.ort_profile(h, cid, ctx["paths"]["qdq"], threads, x, out)
            else:
                profiles.tvm_profile(h, cid, runner, x, (out.get("rules") or {}).get("kernels") or {}, out)
        if not engine.startswith("tvm"):
            return
        profile = engines.record_op_profile(runner, x, out)
        kernels = [op for op in profile if op["kind"] == "kernel"]
        if engine in ("tvm_fp32", "tvm_int8"):
            ctx["op_seconds"]["fp32" if engine == "tvm_fp32" else "int8"] = \
                {op["op"]: float(op["seconds"]) for op in kernels}
        if executable is not None:
            evidence, asm = asm_evidence(executable, kernels[0]["op"] if kernels else None)
            out["asm"] = evidence
            if evidence["hottest_kernel"]:   # the counts are read back from it (reportgen.data.searchfacts)
                out["asm"]["artifact"] = h.artifact(f"{name}-{engine}-hottest.s", asm)[1]

    own, paired = {}, {}

    def timed(built):
        with leftovers.temporary() as tmp:
            pair = PAIRED_PEER.get(engine)
            if pair and p.get("paired_blocks") and pair[1] in ctx["paths"]:
                kind, key = PEER_FILES.get(pair[0], ("tvm", pair[1]))
                paired.update(peer.paired_with(engines.export(built[0], tmp), kind, ctx["paths"][key], x, threads,
                                               int(p["paired_blocks"]), int(p["paired_calls"]), tmp,
                                               own_p50_s=ctx.get("own_p50_s", {}).get(pair[0])))
                return paired["samples"], 1
            if engine in PEER_FILES:
                kind, key = PEER_FILES[engine]
                model = ctx["paths"][key]
            elif engine == "tvm_fp32_rules_avx2":   # kept: the INT8 AVX2 program is paired with it
                kind, model = "tvm", engines.export(built[0], ctx["tmp"])
                ctx["paths"]["fp32_rules_avx2"] = model
            else:   # a TVM engine: the library its executable is exported to
                kind, model = "tvm", engines.export(built[0], tmp)
            own.update(peer.time_in_child(kind, model, x, threads, p, tmp))
        ctx.setdefault("own_p50_s", {})[engine] = float(np.median(own["samples"]))   # a paired peer's own median
        return own["samples"], 1

    def note(o):
        score = scored["score"]
        fields = {"rel_err": score["max_rel_err"], **({"accuracy": score["accuracy"]} if "accuracy" in score else {})}
        agree = scored.get("agree")
        if agree:   # top-1 agreement and top-5 overlap with FP32 on the crops; margins in FP32 logit sd
            mg = agree["margins"]
            fields.update(top1=agree["top1_agree"], top5=agree["top5_agree"], inputs=int(agree["inputs"]),
                          margin_p5=mg["margin_quantiles"]["5"], margin_p50=mg["margin_quantiles"]["50"],
                          error_median=mg["error_median"], below_share=mg["share_margin_below_error"],
                          flips=int(mg["flips"]), **({"flip_margin_max": mg["flip_margin_max"]} if mg["flips"] else {}))
        return fields

    # every engine checked here and timed in a process of its own (experiments/e2e/peer.py)
    h.measure(cid, case, build=build, check=check, call=call, time=timed,
              extra=extra, after=after,
              mismatch="output too far from FP32", note=note, reuse=False)


def study(h, name, p, threads, target):
    from experiments.e2e import engines
    from experiments.int8 import avx2_dot, peers
    from experiments.int8 import quantize as Q
    subj = _subject(h, name, p)
    model = subj["model"]
    reference = np.concatenate([model(x[None], training=False).numpy() for x in subj["eval_x"]])
    agree_x = subj.get("agree_x")
    agree_ref = None if agree_x is None else np.concatenate(
        [model(agree_x[i:i + 16], training=False).numpy() for i in range(0, len(agree_x), 16)])
    quant = dict(p["default"])
    with leftovers.temporary() as tmp:
        paths = {"onnx": peers.export_onnx(model, Path(tmp) / f"{name}.onnx", batch=1),
                 "tflite": peers.export_tflite(model, Path(tmp) / f"{name}.tflite", batch=1)}
        fp32_mod = Q.prepare(engines.tvm_import_onnx(paths["onnx"], subj["shape"]))
        layout = packed_layout(p, target)
        use_vnni = layout is not None
        if layout == "vnni":
            vnni_layout(p, target)   # registers the byte-operand intrinsic
        weight_max = avx2_dot.weight_max(target) if use_vnni else avx2_dot.VNNI_WEIGHT_MAX
        # the integer program starts from a channels-last copy when it uses the packed kernels;
        # the FP32 engines keep the imported NCHW module
        int8_src = Q.channels_last(fp32_mod) if use_vnni else fp32_mod
        h.say(f"{name}: packed integer kernels "
              f"{f'on ({layout}, NHWC, weights in 16x4 blocks, |w| <= {weight_max})' if use_vnni else 'off'}")
        tap_mod, names = Q.tap_module(int8_src)
        tap_ex = _compile(tap_mod, target)
        taps = Q.run_taps(tap_ex, subj["calib"], names)
        eval_taps = Q.run_taps(tap_ex, [x[None] for x in subj["eval_x"][:_n_layer(p, name)]], names)
        rounded, roundings = _rounding(h, name, int8_src, taps, quant)
        chosen = _quant_configs(h, name, subj, int8_src, target, taps, reference,
                                dict(p, threads=threads), eval_taps, use_vnni, weight_max, rounded(weight_max))
        qmod, report = chosen
        calib = subj["calib"][:p["n_calib_peers"]]
        ctx = {"h": h, "name": name, "paths": paths, "shape": subj["shape"], "input_size": subj["input_size"],
               "fp32_mod": fp32_mod, "int8_mod": qmod, "quant": quant, "isa": _cpu_isa(),
               "rewrite": dict({k: v for k, v in report.items() if k != "groups"}, vnni_layout=use_vnni,
                               packed_isa=layout, calibration=subj["calib_source"],
                               peer_calibration_images=len(calib),
                               **{f"rounding_{k}": v for k, v in (roundings[weight_max][1].as_dict().items()
                                                                  if weight_max in roundings else ())}),
               "eval_x": subj["eval_x"], "eval_y": subj["eval_y"], "reference": reference,
               "agree_x": agree_x, "agree_ref": agree_ref, "tmp": tmp, "int8_src": int8_src,
               "acts": Q.calibrate(taps, quant["method"], quant["scheme"]), "float_kinds": _float_kinds(p, name),
               "op_seconds": {"fp32": {}, "int8": {}}, "errors": {}, "rounded": rounded}
        try:
            ctx["qdq_info"] = peers.ort_static_qdq(paths["onnx"], calib, Path(tmp) / f"{name}.qdq.onnx",
                                                   activation_type="uint8" if quant["scheme"] == "uint8" else "int8",
                                                   method=quant["method"] if quant["method"] in ("minmax", "percentile") else "minmax",
                                                   reduce_range=p["ort_reduce_range"])
            paths["qdq"] = ctx["qdq_info"]["path"]
        except Exception as exc:  # noqa: BLE001 - recorded on the engines that need it
            ctx["errors"]["qdq"] = f"ONNX Runtime static quantization failed: {type(exc).__name__}: {exc}"
        try:
            ctx["tflite_info"] = peers.tflite_full_int8(model, calib, Path(tmp) / f"{name}.int8.tflite", io="float",
                                                        batch=1)
            paths["tflite_int8"] = ctx["tflite_info"]["path"]
        except Exception as exc:  # noqa: BLE001 - recorded on the engine that needs it
            ctx["errors"]["tflite_int8"] = f"TFLite full-integer conversion failed: {type(exc).__name__}: {exc}"
        for engine in p["engines"]:
            if engine == "tvm_int8_tuned" and name in p.get("untuned_models", []):
                _skip(h, ctx, engine, threads, "the profile gives this model no INT8 tuning budget (untuned_models)")
                continue
            if engine == "tvm_fp32_tuned" and name in p.get("fp32_tuned_from_e2e", []) and \
                    _e2e_tuning(h, name, threads, p) is None:
                _skip(h, ctx, engine, threads, "no e2e_tune database for this model yet (fp32_tuned_from_e2e)")
                continue
            if engine in AVX2_ENGINES:
                why = _avx2_skip(name, p, target)
                if why:
                    _skip(h, ctx, engine, threads, why)
                    continue
                import tvm
                avx2 = targets.with_num_cores(tvm.target.Target({"kind": "llvm", "mcpu": AVX2_MCPU}), threads)
                _measure(h, ctx, engine, p, threads, avx2)
                continue
            _measure(h, ctx, engine, p, threads, target)


def _skip(h, ctx, engine, threads, why):
    h.skip(case_id(ctx["name"], ctx["input_size"], engine=engine, batch=1, threads=threads),
           {"model": ctx["name"], "engine": engine, "group": GROUP[engine], "batch": 1, "threads": threads,
            "input_size": ctx["input_size"]}, why)


def run(h):
    from experiments.e2e import engines
    threads = targets.threads(h.params)
    engines.configure_tf_threads(threads)
    target = targets.host_target(threads)
    for name in h.params["models"]:
        study(h, name, h.params, threads, target)


if __name__ == "__main__":
    harness.main(run)
