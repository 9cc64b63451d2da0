"""What does each graph-level pass do to the IR, and does it change the speed?

Seed §3, §4, §24, §29, §30 on today's Relax (Relay is gone): the smallest
"Hello Relax" function; the §29 convolution unit (conv 32×3×3×3 stride 2,
inference batch norm with non-trivial statistics, ReLU) taken through a pass
pipeline one step at a time, the IR, the operator/function counts and the
intermediate bytes recorded after each step, and the module compiled at each
step timed after a check against a NumPy reference; the same
pass-by-pass study on a real network, ResNet-18 (params ``models``; each step
checked against the imported step and timed with the ``model_*`` repeat
params); every historical Relay pass of §24 demonstrated through its Relax
counterpart (or stated as missing); and every old API the seed names resolved
to its 0.27 replacement.
"""
import json
import time

import numpy as np

from experiments import harness
from study import cases
from study.family import Family

FAMILY = Family(name="graph", timeout_s={"quick": 1800, "standard": 1800, "full": 3600},
                params=("budget_s", "hello_input", "min_repeat", "min_sample_s", "model_budget_s",
                        "model_min_repeat", "model_repeat", "models", "pipelines", "repeat", "seed",
                        "warmup"),
                claims_of={"warmup": [], "repeat": [], "min_repeat": [], "min_sample_s": [], "budget_s": [], "model_budget_s": [], "model_min_repeat": [], "model_repeat": [],
                           "models": []})

UNIT = "none"   # of this family's evidence records


def _json_safe(value):
    return json.loads(json.dumps(value, default=str))


def _finite(check, reference):
    out = dict(check, reference=reference)
    for key in ("max_abs_err", "max_rel_err"):
        if not np.isfinite(out[key]):
            out[key], out["passed"] = None, False
    return out


def hello(h, rs, p):
    def run():
        res = rs.hello_relax(p["hello_input"])
        arts = {name: h.artifact(f"hello.{suffix}", res[key] or "")[1]
                for name, key, suffix in (("relax_ir", "ir_text", "relax.py"), ("tir", "tir_text", "tir.py"),
                                          ("vm_bytecode", "vm_text", "vm.txt"), ("llvm_ir", "llvm_ir", "ll"),
                                          ("asm", "asm", "s"))}
        ok = res["output"] == res["expected"] and res["script_roundtrip"]
        h.say(f"hello relax: {res['input']} + 1 = {res['output']} ({res['output_dtype']}), "
              f"roundtrip {res['script_roundtrip']}")
        return ({"reference": "input + 1, and the printed IR parses back to the same module",
                 "max_abs_err": float(abs(res["output"] - res["expected"])), "max_rel_err": 0.0,
                 "threshold": 0.0, "passed": bool(ok)},
                {"ir_text": res["ir_text"], "output": res["output"], "output_dtype": res["output_dtype"],
                 "script_roundtrip": res["script_roundtrip"], "target": res["target"], "artifacts": arts})

    h.evidence(cases.case_id("graph", case="hello"), {"case": "hello_relax", "input": p["hello_input"]}, run, unit=UNIT,
               mismatch="hello relax gave a wrong answer")


def _emit_step(h, rs, p, step, *, case_id, case, ir_name, data, expected, reference, rtol=1e-4, prefix=""):
    """One record for one pipeline step: IR artifact and stats, compile, check, time.

    ``expected()`` gives the output to compare with (called only when the step
    is compiled here); ``reference`` describes it in the record.  Returns the
    step's output, or None when the record was reused or the compile failed.
    """
    extra = {"stats": _json_safe(step.stats), "changed": step.changed,
             "compiled_with": "LegalizeOps + tvm.compile(relax_pipeline='default')"}
    out = {}

    def build():
        extra["artifacts"] = {"ir": h.artifact(ir_name, step.text)[1]}
        t0 = time.perf_counter()
        run = rs.compile_step(step.mod)
        extra["compile_seconds"] = time.perf_counter() - t0
        return run

    def check(run):
        out["output"] = run(data)
        return _finite(rs.check(out["output"], expected(), rtol), reference)

    def note(o):
        stats = step.stats
        return {"calls": int(stats["n_calls"]), "relax_funcs": int(stats["n_relax_funcs"]),
                "tir_funcs": int(stats["n_tir_funcs"]), "intermediate_bytes": int(stats["intermediate_bytes"]),
                "changed": bool(step.changed), "compile_s": float(extra["compile_seconds"]),
                "max_err": float(o.check["max_abs_err"])}

    h.measure(case_id, case, build=build, check=check, call=lambda run: lambda: run(data), extra=extra,
              prefix=prefix, note=note, mismatch=f"step output differs from {reference}")
    return out.get("output")


def pipeline(h, rs, p, variant):
    """The conv unit through ``variant``, one record per step, checked against NumPy."""
    mod, _params, reference = rs.conv_unit(p["seed"])
    data = rs.conv_input(p["seed"])
    expected = reference(data)
    for step in rs.apply_pipeline(mod, rs.pipeline_steps(variant)):
        case = {"unit": "conv", "pipeline": variant, "step": step.index, "pass": step.name}
        tag = f"{step.index:02d}-{step.name}"
        _emit_step(h, rs, p, step, case_id=cases.case_id("graph", unit="conv", pipeline=variant, step=tag), case=case,
                   ir_name=f"conv-{variant}-{tag}.relax.py", data=data,
                   expected=lambda: expected, reference="NumPy conv (im2col) + inference BN + ReLU")


MODEL_RTOL = 1e-3  # float32 through ~20 conv layers, relative to max |reference| (see rs.check)
IMPORTED_REFERENCE = "the imported step (00) compiled the same way, same input"


def _models(rs):
    """Model name -> (builder(seed) -> (mod, NumPy reference), input(seed), reference description)."""
    from experiments.graph import resnet18
    return {"resnet18": (resnet18.resnet18, resnet18.resnet18_input, "NumPy ResNet-18 (float64, im2col convs)")}


def model_pipeline(h, rs, p, variant, model="resnet18"):
    """A whole network through ``variant``, one record per step, like :func:`pipeline`.

    Step 00 (imported) is checked against the NumPy reference; every later step
    against step 00's compiled output on the same input (compiled here if step
    00 was reused), so a step's error is what its passes changed.  Timing uses
    the ``model_*`` repeat params.
    """
    build, make_input, numpy_ref = _models(rs)[model]
    mod, reference = build(p["seed"])
    data = make_input(p["seed"])
    steps = rs.apply_pipeline(mod, rs.pipeline_steps(variant))
    imported = {}

    def imported_output():
        if "out" not in imported:
            imported["out"] = rs.compile_step(steps[0].mod)(data)
        return imported["out"]

    for step in steps:
        case = {"model": model, "pipeline": variant, "step": step.index, "pass": step.name}
        tag, is_imported = f"{step.index:02d}-{step.name}", step.index == 0
        out = _emit_step(h, rs, p, step, case_id=cases.case_id("graph", model=model, pipeline=variant, step=tag), case=case,
                         ir_name=f"{model}-{variant}-{tag}.relax.py", data=data,
                         expected=(lambda: reference(data)) if is_imported else imported_output,
                         reference=numpy_ref if is_imported else IMPORTED_REFERENCE,
                         rtol=MODEL_RTOL, prefix="model_")
        if is_imported and out is not None:
            imported["out"] = out


def _semantics_check(rs, before, after, seed):
    """Run the module before and after the pass on the same random inputs.

    Inputs are drawn from [0.1, 1): positive, so a variance input never
    makes sqrt(var + eps) undefined.
    """
    func = before["main"]
    rng = np.random.default_rng(seed)
    inputs = []
    for param in func.params:
        ty = param.ty
        shape = [int(d) for d in ty.shape]
        inputs.append(rng.uniform(0.1, 1.0, shape).astype(str(ty.dtype)))
    out_before = rs.compile_step(before)(*inputs)
    out_after = rs.compile_step(after)(*inputs)
    return _finite(rs.check(out_after, out_before), "the same graph before the pass, same random inputs")


def pass_map(h, rs, p):
    import tvm
    from experiments.graph import migration as mg
    for row in mg.PASS_MAP:
        case = {"relay_pass": row["relay_pass"], "relax_pass": row["relax_equivalent"] or "none"}
        case_id = cases.case_id("graph", relay_pass=row["relay_pass"])
        extra = {"relax_equivalent": row["relax_equivalent"]}
        if not row["relax_equivalent"]:
            h.skip(case_id, case, f"no Relax equivalent in TVM {tvm.__version__}", extra=extra, evidence_unit=UNIT)
            continue

        def run():
            demo = mg.demonstrate(row["relay_pass"])
            builders = mg._demo_builders()  # noqa: SLF001 - the same small graph the demo used
            before, passes = builders[row["relay_pass"]]()
            after = tvm.transform.Sequential(passes)(before)
            check = _semantics_check(rs, before, after, p["seed"])
            check["passed"] = bool(check["passed"] and demo["changed"])
            extra.update(passes=demo["passes"], changed=demo["changed"],
                         before_stats=_json_safe(demo["before_stats"]), after_stats=_json_safe(demo["after_stats"]),
                         artifacts={"before": h.artifact(f"pass-{row['relay_pass']}.before.relax.py",
                                                         demo["before_text"])[1],
                                    "after": h.artifact(f"pass-{row['relay_pass']}.after.relax.py",
                                                        demo["after_text"])[1]},
                         before_text=demo["before_text"], after_text=demo["after_text"])
            h.note(case_id, passes=",".join(map(str, demo["passes"])), changed=bool(demo["changed"]), max_err=float(check["max_abs_err"]))
            return check, extra

        h.evidence(case_id, case, run, unit=UNIT, mismatch="pass did not change the IR or changed the result")


def api_migration(h):
    from experiments.graph import migration as mg
    for row in mg.MIGRATION:
        failure = {}

        def run():
            try:
                mg.resolve_api(row["new_api"])
            except (ImportError, AttributeError) as exc:
                failure["error"] = f"{row['new_api']} does not resolve: {exc}"
            return ({"reference": "import of the new API path", "max_abs_err": None, "max_rel_err": None,
                     "threshold": None, "passed": not failure}, dict(row))

        slug = cases.api_slug(row["old_api"])
        h.evidence(cases.case_id("graph", api=slug), {"old_api": row["old_api"], "new_api": row["new_api"]}, run, unit=UNIT,
                   mismatch=lambda _: failure["error"])


def run(h):
    from experiments.graph import relax_study as rs
    p = h.params
    hello(h, rs, p)
    for variant in p["pipelines"]:
        pipeline(h, rs, p, variant)
    for model in p.get("models", []):
        for variant in p["pipelines"]:
            model_pipeline(h, rs, p, variant, model)
    pass_map(h, rs, p)
    api_migration(h)


if __name__ == "__main__":
    harness.main(run)
