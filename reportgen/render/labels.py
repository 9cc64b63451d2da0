"""Display names of models, engines, GEMM stages and search spaces (words of the pages): charts,
tables and provenance titles name a case through these, never by its code id."""
from reportgen.data.queries import TVM_ENGINES
from reportgen.data.words import W, W_for

MODEL_ZH = {"digits_cnn": "digits CNN", "resnet18_v1": "ResNet-18", "inception_v1": "Inception v1", "mobilenet_v2": "MobileNetV2",
            "resnet50": "ResNet-50"}
# e2e engines in the seed's group order, then the INT8 study's (FP32 before INT8, TVM before its peers)
E2E_ENGINES = ("tf", "ort", "tflite", *TVM_ENGINES)
INT8_ENGINES = ("tvm_fp32", "tvm_int8", "tvm_fp32_tuned", "tvm_int8_tuned", "tvm_fp32_rules", "tvm_int8_rules",
                "tvm_fp32_rules_avx2", "tvm_int8_rules_avx2", "tvm_qdq", "ort_fp32", "ort_qdq", "tflite_fp32", "tflite_int8")
_NAMED = {"tf": "TensorFlow", "ort": "ONNX Runtime", "tflite": "TFLite"}
ENGINE_ZH = {e: _NAMED.get(e) or W_for("labels.engine_zh", e) for e in (*E2E_ENGINES, *INT8_ENGINES)}


def model_zh(model):
    return MODEL_ZH.get(model, model)


def engine_zh(engine):
    return ENGINE_ZH.get(engine) or W_for("labels.engine_zh", engine)


ENGINE_FAMILIES = ("e2e", "int8")


def engine_problems(runs):
    """An e2e or int8 record names an engine the pages have a name for (ENGINE_ZH, or words filed
    under it in docs/words/labels.yaml): an engine no one declared is refused, naming the record."""
    from reportgen.data.words import catalog
    known = set(ENGINE_ZH) | set(catalog("labels")[1].get("engine_zh") or {})
    return [f"{run.path / 'records.jsonl'}: {rec['id']}: case.engine: {rec['case']['engine']!r:.80} is not a "
            f"known engine (docs/words/labels.yaml engine_zh names the engines a page may show)"
            for run in runs for rec in run.records
            if rec["experiment"] in ENGINE_FAMILIES and "engine" in rec["case"]
            and not (isinstance(rec["case"]["engine"], str) and rec["case"]["engine"] in known)]


# the GEMM ladder's stages, in ladder order
STAGES = ("baseline", "blocking", "vectorization", "loop_permutation", "packing", "write_cache",
          "parallel", "microkernel", "autotuned", "autotuned_microkernel")
STAGE_ZH = {s: W_for("labels.stage_zh", s) for s in STAGES}


def stage_zh(stage):
    return STAGE_ZH.get(stage, stage)


SPACE_ZH = {"autotuned": W("labels.space_zh.autotuned"), "autotuned_microkernel": W("labels.space_zh.autotuned_microkernel")}


FAMILIES = ("machine_peak", "numpy_gemm", "gemm_hand", "gemm_tvm", "graph", "e2e", "e2e_tune", "int8")


def family_zh(family):
    return W_for("labels.family_zh", family) if family in FAMILIES else family


# the case fields that name a case for a reader, in the order they are said; the others (seeds,
# fingerprints, targets, tile dicts) stay on the provenance entry
NAMING = ("model", "engine", "impl", "stage", "kernel", "method", "pipeline", "step", "pass", "dtype", "isa",
          "blas_env", "n", "batch", "threads")
IMPLS = ("tvm", "numpy", "hand", "tvm_grid", "tvm_int8")


def _value(key, value):
    """One case field as a reader says it."""
    if key == "model":
        return model_zh(value)
    if key == "engine":
        return engine_zh(value)
    if key == "stage":
        return stage_zh(value)
    if key == "impl" and value in IMPLS:
        return W_for("labels.impl_zh", value)
    return W_for("labels.case", key, value=value)


def case_label(family, case):
    """A record's case as words (family, shape, then the NAMING fields in their words). The code
    id stays on the provenance entry, in a code span."""
    case = dict(case or {})
    parts = [family_zh(family)]
    if all(k in case for k in ("m", "n", "k")):
        parts.append(f"{case.pop('m')}×{case.pop('n')}×{case.pop('k')}")
    parts += [_value(k, case[k]) for k in NAMING if case.get(k) not in (None, "", "default", "any")]
    return " · ".join(str(p) for p in parts)
