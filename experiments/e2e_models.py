"""Where does end-to-end time go, and what does each group of seed §2 buy on real networks?

Groups measured here: A — TensorFlow (the business baseline), with ONNX Runtime
and TFLite (XNNPACK) as the peers a user would pick instead; B — TVM importing
the ONNX export and compiling with the default build (no fusion); C — B plus
the graph-level pipeline (fold + fuse); D — C plus the MetaSchedule database
that the e2e_tune family produced for the same model, batch and threads (no
database: the case is recorded as skipped, never timed untuned under D's name).
E/F (INT8) come from the int8 family. Every engine is first checked against
TensorFlow on natural images and seeded noise; import, compile, cold and warm
times are kept apart; TVM's time is broken down per operator with the VM
instrument hook.

Every sample is one call (one request): P50/P95/P99 are latencies of single
requests, not of averages. Batch 1 measures latency; batch 8 measures
throughput (images per second = 8 / time per call) for ``batch8_engines``.
"""
import hashlib
import time
from pathlib import Path

import numpy as np

from experiments import harness, targets
from experiments.e2e import peer
from study import cases, leftovers, work
from study.family import Family

FAMILY = Family(name="e2e", timeout_s={"quick": 3600, "standard": 3600, "full": 3600},
                uses=["e2e_tune"],  # group D times the database of the newest matching e2e_tune record
                params=("batch_engines", "batches", "budget_s", "engines", "input_size", "min_repeat",
                        "models", "n_check", "node_profile_models", "paired_blocks", "paired_calls",
                        "repeat", "rules_trials", "seed", "tolerance", "warmup"),
                # timing and which cases run; the images checked change the agreement and errors; a rule
                # engine's candidates per kernel change its kernels
                claims_of={"warmup": [], "repeat": [], "min_repeat": [], "budget_s": [], "paired_blocks": [], "paired_calls": [], "engines": [], "batch_engines": [],
                           "batches": [], "models": [], "node_profile_models": [], "n_check": ["inputs", "agreement", "check"],
                           "rules_trials": ["rules"]})

ENGINES = ("tf", "ort", "tflite", "tvm_b", "tvm_c", "tvm_d", "tvm_d_prepack", "tvm_rules", "tvm_rules_tuned")
GROUP = cases.ENGINE_GROUPS["e2e"]   # the seed's groups (study/cases.py: records are checked against it)
RULE_ENGINES = ("tvm_rules", "tvm_rules_tuned")   # group D by rule: experiments/e2e/nchwc.py
PAIRED_WITH = work.PAIRED_PEERS[("e2e", "tvm_rules")]   # the peer the rule engines are timed in blocks with
TUNING_VARIANT = {"tvm_d": "default", "tvm_d_prepack": "prepack"}   # group D engines and their search space



def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _tuning_record(h, name, batch, threads, p, variant="default"):
    """The e2e_tune record for this model/batch/threads/variant at this input size and seed, or None."""
    from experiments import e2e_tune
    return h.upstream_record("e2e_tune", e2e_tune.case_id(name, batch, threads, p["input_size"], variant),
                             accept=lambda r: r["case"]["input_size"] == p["input_size"]
                             and r["case"]["seed"] == p["seed"])


def _no_tuning_reason(h, name, batch, variant="default"):
    """Why group D has no database: the profile never tunes this model/batch, or its job left no record."""
    jobs = (h.spec.upstream_params.get("e2e_tune") or {}).get("jobs")
    if jobs is not None and not any(j["model"] == name and int(j["batch"]) == batch
                                    and j.get("variant", "default") == variant for j in jobs):
        return (f"this profile's e2e_tune jobs do not tune {name} at batch {batch} with the {variant} search "
                f"space (each batch size and variant needs its own database and trial budget)")
    if jobs is None:
        return "no ok e2e_tune record for this model/batch/threads/input size: run the e2e_tune family first"
    return ("no ok e2e_tune record for this model/batch/threads/input size: the profile lists the job, "
            "but no run has finished it (see the e2e_tune family's run_failed record, or run it first)")


def _prepare(engine, model, paths, threads, size, batch=1, tuning=None, h=None):
    """A runner and what preparing it cost (import/compile seconds, kernel counts)."""
    from experiments.e2e import engines
    info = {}
    if engine == "tf":
        return engines.prepare_tf(model, threads), info
    if engine == "ort":
        return engines.prepare_ort(paths["onnx"], threads), info
    if engine == "tflite":
        return engines.prepare_tflite(paths["tflite"], threads), info
    variant = engine.split("_")[1].upper()
    t0 = time.perf_counter()
    mod = engines.tvm_import_onnx(paths["onnx"], (batch, size, size, 3))
    info["import_seconds"] = time.perf_counter() - t0
    target = targets.host_target(threads)
    t0 = time.perf_counter()
    if engine in RULE_ENGINES:
        return _prepare_rules(engine, mod, target, threads, info, t0, h, (batch, size, size, 3))
    if variant == "D":
        from experiments.e2e import tuning as tuning_mod
        executable, coverage = tuning_mod.compile_tuned(mod, target, h.artifact_path(tuning["extra"]["artifacts"]["database"]),
                                                        TUNING_VARIANT[engine])
        expected = len(tuning["extra"]["coverage"]["scheduled"])
        if len(coverage["scheduled"]) < expected:   # the database is not this module's: refuse, never time it
            raise RuntimeError(f"the e2e_tune database of run {tuning['run_id']} schedules {len(coverage['scheduled'])} "
                               f"of the {expected} kernels its record names for this module: refused")
        summary = tuning["extra"]["tuning"]
        info["tuning"] = {"record": tuning["id"], "run_id": tuning["run_id"], "database": tuning["extra"]["artifacts"]["database"],
                          "variant": TUNING_VARIANT[engine],
                          "cumulative_trials": (tuning["extra"].get("campaign") or {}).get("cumulative_trials", summary["measured"]),
                          "trials": summary["measured"], "valid_trials": summary["valid"], "seconds": summary["seconds"],
                          "scheduled": len(coverage["scheduled"]), "unscheduled": coverage["unscheduled"]}
        info["tuned"] = True
    else:
        executable = engines.tvm_compile(mod, target, variant)
        info["tuned"] = False
    info["compile_seconds"] = time.perf_counter() - t0
    info["kernel_calls"] = engines.tvm_kernel_calls(executable)
    info["target"] = str(target)
    return engines.prepare_tvm(executable, threads, variant), info


def _prepare_rules(engine, mod, target, threads, info, t0, h, shape):
    """Group D by rule: the NCHWc register-tiled kernels with the rule's tiles (``tvm_rules``, no
    search) or the fastest of each conv's knob grid, timed kernel by kernel (``tvm_rules_tuned``)."""
    from experiments.e2e import engines, nchwc, nchwc_rules
    engines.configure_tvm_threads(threads)   # the tuned variant times kernels on the run's pool
    fused = nchwc.fuse_rules(mod, target)
    knobs, tuning = {}, None
    if engine == "tvm_rules_tuned":
        tuning = nchwc_rules.tune_network(fused, target, threads, int(h.params.get("rules_trials", 32)))
        knobs = tuning["knobs"]
        for task in tuning["tasks"]:
            h.say(f"rules tuning {task['kernel']}: {task['candidates']} candidates "
                  f"({task['valid']} valid), default {task['default_s'] * 1e3:.3f} ms -> best "
                  f"{task['best_s'] * 1e3:.3f} ms {task['best']}")
    executable, kernels = nchwc_rules.build_rules(fused, target, knobs_for=lambda name, _shape: knobs.get(name))
    if tuning is not None:
        # kernels timed alone are not kernels in the network (caches, neighbours): the tuned
        # network is kept only if it beats the rule's default network, both timed here in turns
        default, default_kernels = nchwc_rules.build_rules(fused, target)
        choice = nchwc_rules.faster_network(executable, default, threads, shape)
        tuning["network_check"] = choice
        h.say(f"rules tuned network {choice['tuned_ms']:.3f} ms vs default {choice['default_ms']:.3f} ms "
              f"(median of {choice['calls']} alternating calls; tuned faster in {choice['tuned_wins']} of "
              f"{choice['calls']} rounds, sign test p = {choice['p_value']:.3g}): keep {choice['kept']}")
        if choice["kept"] == "default":
            executable, kernels = default, default_kernels
    info["compile_seconds"] = time.perf_counter() - t0
    info["tuned"] = tuning is not None
    info["rules"] = {"lanes": nchwc.lanes_of(target), "registers": nchwc.vector_registers(target),
                     "kernels": kernels,
                     "conv_kernels": sum(1 for k in kernels.values() if k["rule"] in ("conv", "depthwise")),
                     "depthwise_kernels": sum(1 for k in kernels.values() if k["rule"] == "depthwise")}
    if tuning is not None:
        info["rules_tuning"] = {"trials": tuning["trials"], "seconds": tuning["seconds"], "limit": tuning["limit"],
                                "tasks": tuning["tasks"], "network_check": tuning["network_check"]}
    info["kernel_calls"] = engines.tvm_kernel_calls(executable)
    info["target"] = str(target)
    return engines.prepare_tvm(executable, threads, engine), info


def _check(runner, batches, reference, tolerance):
    from experiments.e2e import engines
    logits = np.concatenate([runner(b) for b in batches])
    agree = engines.agreement(logits, reference)
    passed = agree["top1_agree"] == 1.0 and agree["max_rel_err"] <= tolerance
    return {"reference": "TensorFlow logits on the same inputs (max_rel_err = max|Δ| / max|ref|)",
            "max_abs_err": agree["max_abs_err"], "max_rel_err": agree["max_rel_err"],
            "threshold": tolerance, "passed": bool(passed)}, agree


def _kernel_profile(h, engine, runner, x, onnx_path, threads, info):
    """Every kernel's time (TVM: the VM profile; ORT: its own profiler, in the same process as its
    timed calls), median of several runs, for the per-convolution table; each conv kernel said in
    the log with its time."""
    from experiments.e2e import engines
    if engine == "ort":
        rows = engines.ort_node_profile(onnx_path, threads, x)
        info["node_profile"] = rows
        for row in rows:
            if row["op"] == "Conv":
                h.say(f"ort node {row['node']} {row['inputs'][1] if len(row['inputs']) > 1 else ''}: "
                      f"{row['seconds'] * 1e3:.4f} ms")
        return
    rows = engines.tvm_kernel_profile(runner.handle, x)
    info["kernel_profile"] = rows
    for row in rows:
        if row["kind"] == "kernel":
            h.say(f"{engine} kernel {row['op']} x{row['calls']}: {row['seconds'] * 1e3:.4f} ms")


def _timed_model(engine, runner, paths, folder):
    """(peer engine, model file) an engine is timed on in its own process: ORT and TFLite load the
    family's exported models, a TVM engine the library its executable is exported to."""
    from experiments.e2e import engines
    if engine == "ort":
        return "ort", paths["onnx"]
    if engine == "tflite":
        return "tflite", paths["tflite"]
    return "tvm", engines.export(runner, folder)


def measure_case(h, ctx, engine, batch):
    """One engine at one batch size: prepare, check against TF, time single calls, profile TVM."""
    from experiments.e2e import engines
    name, p, threads, size = ctx["name"], ctx["p"], ctx["threads"], ctx["size"]
    case = {"model": name, "engine": engine, "group": GROUP[engine], "batch": batch, "threads": threads,
            "input_size": size, "seed": p["seed"]}
    case_id = cases.case_id("e2e", model=name, size=size, engine=engine, batch=batch, threads=threads)
    tuning = None
    if engine in TUNING_VARIANT:
        tuning = _tuning_record(h, name, batch, threads, p, TUNING_VARIANT[engine])
        if tuning is None:
            h.skip(case_id, case, _no_tuning_reason(h, name, batch, TUNING_VARIANT[engine]))
            return
        # a new database (a further campaign step has the same case, so its run names it) is a new measurement
        case["tuning_fingerprint"] = tuning["fingerprint"]
        case["tuning_run"] = tuning["run_id"]
    batches = ctx["batches"][batch]
    agreement = {}

    def check(prepared):
        runner, info = prepared
        t0 = time.perf_counter()
        runner(batches[0])
        info["cold_seconds"] = time.perf_counter() - t0
        result, agreement["value"] = _check(runner, batches, ctx["reference"][batch], p["tolerance"])
        return result

    def extra(prepared):
        runner, info = prepared
        return {"engine": runner.metadata(), "agreement": agreement["value"], "model_files": ctx["files"][batch],
                "inputs": ctx["input_names"][:len(batches) * batch], "images_per_call": batch, **info}

    def call(prepared):
        runner = prepared[0]
        return lambda: runner(batches[0])

    own, paired = {}, {}   # an engine's timing in its own process; a rule engine's blocks paired with ORT's

    def timed(prepared):
        with leftovers.temporary() as tmp:
            kind, model_path = _timed_model(engine, prepared[0], ctx["paths"][batch], tmp)
            own.update(peer.time_in_child(kind, model_path, batches[0], threads, p, tmp))
        ctx.setdefault("own_p50_s", {})[(engine, batch)] = float(np.median(own["samples"]))   # a paired peer's
        return own["samples"], 1

    def timed_paired(prepared):
        with leftovers.temporary() as tmp:
            _kind, library = _timed_model(engine, prepared[0], ctx["paths"][batch], tmp)
            paired.update(peer.paired_with(library, PAIRED_WITH, ctx["paths"][batch]["onnx"], batches[0], threads,
                                           int(p["paired_blocks"]), int(p["paired_calls"]), tmp,
                                           own_p50_s=ctx.get("own_p50_s", {}).get((PAIRED_WITH, batch))))
        return paired["samples"], 1

    def after(prepared, info):
        if paired:
            info["paired_peer"] = peer.paired_peer(PAIRED_WITH, paired)
            h.say(peer.paired_line(case_id, PAIRED_WITH, paired))
        if own or paired:
            info["timing_process"] = peer.timing_process(own or paired)
        if engine.startswith("tvm"):
            engines.record_op_profile(prepared[0], batches[0], info)
        if batch == 1 and (engine in RULE_ENGINES or (engine == "ort" and name in p.get("node_profile_models", []))):
            _kernel_profile(h, engine, prepared[0], batches[0], ctx["paths"][batch]["onnx"], threads, info)

    h.measure(case_id, case, build=lambda: _prepare(engine, ctx["model"], ctx["paths"][batch], threads, size, batch,
                                                    tuning, h),
              check=check, call=call, extra=extra,
              # TensorFlow is timed here (this process built its model); every other engine in a process of its own
              time=(timed_paired if engine in RULE_ENGINES and batch == 1 and p.get("paired_blocks") else
                    "requests" if engine == "tf" else timed),
              after=after, mismatch="logits disagree with TensorFlow",
              note=lambda o: {"top1": agreement["value"]["top1_agree"], "rel_err": agreement["value"]["max_rel_err"]})


def measure_model(h, name, p, threads):
    from experiments.e2e import models
    size = p["input_size"]
    plan = {1: list(p["engines"])}
    for batch in p.get("batches", [1]):
        if batch != 1:
            plan[batch] = list(p["batch_engines"])
    model = models.build(name, seed=p["seed"], input_size=size)
    n = max(p["n_check"], max(plan))
    inputs = models.sample_inputs(n, seed=p["seed"], input_size=size)
    ctx = {"name": name, "p": p, "threads": threads, "size": size, "model": model,
           "input_names": models.sample_names(n), "paths": {}, "files": {}, "batches": {}, "reference": {}}
    with leftovers.temporary() as tmp:
        tflite = models.export_tflite(model, Path(tmp) / f"{name}.tflite", batch=1)  # resized per batch
        for batch in plan:
            ctx["batches"][batch] = [inputs[i:i + batch] for i in range(0, n - batch + 1, batch)] \
                if batch > 1 else [x[None] for x in inputs[:p["n_check"]]]
            ctx["reference"][batch] = np.concatenate(
                [model(b, training=False).numpy() for b in ctx["batches"][batch]])
            paths = {"onnx": models.export_onnx(model, Path(tmp) / f"{name}-b{batch}.onnx", batch=batch),
                     "tflite": tflite}
            ctx["paths"][batch] = paths
            ctx["files"][batch] = {k: {"sha256": _sha256(v), "bytes": Path(v).stat().st_size}
                                   for k, v in paths.items()}
        for batch, names in plan.items():
            for engine in names:
                measure_case(h, ctx, engine, batch)


def run(h):
    from experiments.e2e import engines
    threads = targets.threads(h.params)
    engines.configure_tf_threads(threads)   # TF's pools are fixed once any layer is built
    for name in h.params["models"]:
        measure_model(h, name, h.params, threads)


if __name__ == "__main__":
    harness.main(run)
