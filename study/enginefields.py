"""What an e2e or INT8 record says of the engine it timed (extra.engine): the pages print its name, version and
threads beside each scheme (the thread and library parity table), so each is typed, the name is the one its case's
engine runs, and TVM's version is its run's."""
from study.stats import is_count

ENGINE_NAMES = (("tflite", "tflite"), ("tf", "tensorflow"), ("ort", "onnxruntime"), ("tvm", "tvm"))
"""(prefix of case.engine, extra.engine.engine): which library a scheme runs.  The ONNX Runtime peer relabelled
'OpenVINO 2025.3' was printed in the parity table unflagged."""
THREADS = ("threads", "inter_op_threads")
MAX_TEXT = 200


def _text(value):
    return isinstance(value, str) and len(value) <= MAX_TEXT


def problems(rec, environment):
    """One line per field of extra.engine a page cannot print as it is, or that is not what its case ran."""
    extra = rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
    engine, case = extra.get("engine"), rec.get("case") if isinstance(rec.get("case"), dict) else {}
    if engine is None or rec.get("experiment") not in ("e2e", "int8"):
        return []
    if not isinstance(engine, dict):
        return [f"extra.engine: {engine!r:.40} is not a mapping of the engine's name, version and threads"]
    out = []
    for key, value in engine.items():
        if key in THREADS:
            if not is_count(value, 1, 4096):
                out.append(f"extra.engine.{key}: {value!r:.40} is not a count of threads >= 1")
        elif not (_text(value) or isinstance(value, bool)
                  or isinstance(value, list) and all(_text(v) for v in value) and len(value) <= 16):
            out.append(f"extra.engine.{key}: {value!r:.40} is not a text of at most {MAX_TEXT} characters "
                       "(or a yes/no, or a list of such texts)")
    name, version = engine.get("engine"), engine.get("version")
    for key in ("engine", "version"):
        if not (_text(engine.get(key)) and engine.get(key)):
            out.append(f"extra.engine.{key}: missing or empty (the parity table prints it)")
    kind = case.get("engine") if isinstance(case.get("engine"), str) else ""
    want = next((lib for prefix, lib in ENGINE_NAMES if kind.startswith(prefix)), None)
    if want is not None and _text(name) and name != want:
        out.append(f"extra.engine.engine: {name!r:.40}, but case.engine {kind!r:.40} runs {want!r}")
    tvm = (environment or {}).get("tvm_version") if isinstance(environment, dict) else None
    if want == "tvm" and isinstance(tvm, str) and _text(version) and version != tvm:
        out.append(f"extra.engine.version: {version!r:.40}, but its run's TVM is {tvm!r:.40} "
                   "(run.json environment.tvm_version)")
    return out
