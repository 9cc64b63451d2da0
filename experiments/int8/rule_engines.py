"""The int8 family's engines by rule: the FP32 network by the NCHWc rule, the integer program by the
VNNI rule (or, for the AVX2 target, the ``vpmaddubsw``/``vpmaddwd`` one), every other kernel by
the generic rule.

Where the profile gives a model ``rules_trials`` (per model, with a ``default``), each conv
kernel of ``tvm_fp32_rules`` and ``tvm_int8_rules`` is timed alone over its knob grid -- at most
that many candidates per kernel on both sides, so INT8 against FP32 compares equal budgets
(:func:`experiments.e2e.nchwc_rules.tune_network`, :func:`experiments.int8.vnni_rules.tune_network`)
-- and the tuned network is kept only when it beats the rule's default network in alternating
calls (:func:`experiments.e2e.nchwc_rules.faster_network`): kernels timed alone are not kernels in
the network.  The AVX2 pair stays untuned on both sides.
"""

from __future__ import annotations

from typing import Any

TUNED = ("tvm_fp32_rules", "tvm_int8_rules")   # the engines a ``rules_trials`` budget applies to


def trials_for(p: dict[str, Any], name: str) -> int:
    """Candidates per conv kernel the profile gives ``name`` (``rules_trials``; missing: 0)."""
    trials = p.get("rules_trials") or {}
    return int(trials.get(name, trials.get("default", 0)))


def avx2_program(ctx):
    """The integer program for the AVX2 target: the host's default calibration, weights to +-63."""
    from experiments.int8 import avx2_dot
    from experiments.int8 import quantize as Q
    if "int8_avx2_mod" not in ctx:
        rounded = ctx["rounded"](avx2_dot.WEIGHT_MAX) if ctx.get("rounded") else None
        ctx["int8_avx2_mod"], report = Q.rewrite(ctx["int8_src"], ctx["acts"], vnni=True, rounded=rounded,
                                                 weight_max=avx2_dot.WEIGHT_MAX, float_kinds=ctx["float_kinds"])
        ctx["rewrite_avx2"] = dict({k: v for k, v in report.items() if k != "groups"},
                                   calibration=ctx["rewrite"]["calibration"])
    return ctx["int8_avx2_mod"]


def compile_rules(h, engine: str, ctx, target, threads: int, limit: int = 0):
    """(executable, the record's ``rules``: per-kernel rule and tiles, trials, tuning)."""
    import tvm
    from experiments.e2e import engines, nchwc, nchwc_rules
    from experiments.int8 import vnni_rules
    fp32 = engine in ("tvm_fp32_rules", "tvm_fp32_rules_avx2")
    rules = None
    if fp32:
        fused = nchwc.fuse_rules(ctx["fp32_mod"], target)
    else:
        rules = vnni_rules.rules_for(target)
        if not rules:
            raise RuntimeError("the integer conv rule needs a target with avx512vnni or avx2")
        int8_mod = ctx["int8_mod"] if engine == "tvm_int8_rules" else avx2_program(ctx)
        with target:
            fused = tvm.transform.Sequential(nchwc.legalize_passes(target))(int8_mod)
    executable, kernels = nchwc_rules.build_rules(fused, target, rules=rules)
    info = {"trials": 0, "limit": 0}
    if limit and engine in TUNED:
        engines.configure_tvm_threads(threads)   # kernels are timed on the run's pool
        tuning = (nchwc_rules.tune_network(fused, target, threads, limit) if fp32
                  else vnni_rules.tune_network(fused, target, limit))
        cid = f"{ctx['name']}/{engine}"
        for task in tuning["tasks"]:
            h.note(cid, kernel=task["kernel"], candidates=int(task["candidates"]), valid=int(task["valid"]),
                   default_ms=task["default_s"] * 1e3, best_ms=task["best_s"] * 1e3, best=task["best"])
        knobs = tuning["knobs"]
        tuned, tuned_kernels = nchwc_rules.build_rules(fused, target, knobs_for=lambda name, _shape: knobs.get(name),
                                                       rules=rules)
        choice = nchwc_rules.faster_network(tuned, executable, threads, ctx["shape"])
        # medians of alternating calls; tuned_wins of the rounds by a sign test's p_value
        h.note(cid, tuned_ms=float(choice["tuned_ms"]), default_ms=float(choice["default_ms"]), calls=int(choice["calls"]),
               tuned_wins=int(choice["tuned_wins"]), p_value=float(choice["p_value"]), kept=choice["kept"])
        if choice["kept"] == "tuned":
            executable, kernels = tuned, tuned_kernels
        info = {"trials": tuning["trials"], "limit": limit,
                "tuning": {"seconds": tuning["seconds"], "tasks": tuning["tasks"], "network_check": choice}}
    return executable, dict(info, kernels=kernels,
                            rule_kernels=sum(1 for k in kernels.values() if k["rule"] != "generic"))
