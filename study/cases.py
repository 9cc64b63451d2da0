"""Case ids, declared once: for each family, the fields an id may name, in the order they appear.

A record id is ``<family>/<field>=<value>/...``: the fields this module lists for the family, in
this order, each present only when the case has it (a NumPy peer of ``gemm_tvm`` names its
``blas``, a point of the tile grid its tiles, a family that failed as a whole its ``scope``).
Experiments make ids with :func:`case_id`, reportgen looks records up with it; no other module
spells an id.  Adding a field to a family is adding its name here, where it belongs in the order
(and giving it a value where the family measures such cases): every id without it stays as it was.

Ids of older runs, written before a field moved, are read as they are: :func:`fields` parses any.
"""
from __future__ import annotations

ID_FIELDS: dict[str, tuple[str, ...]] = {
    "machine_peak": ("dtype", "isa", "threads"),
    "numpy_gemm": ("dtype", "n", "threads", "blas"),
    "gemm_hand": ("kernel", "n"),
    "gemm_tvm": ("impl", "stage", "m", "n", "k", "threads", "blas", "mr", "nr", "kc", "mc", "target"),
    "graph": ("case", "unit", "model", "pipeline", "step", "relay_pass", "api"),
    "e2e": ("model", "size", "engine", "batch", "threads"),
    "e2e_tune": ("model", "size", "variant", "batch", "threads"),
    "int8": ("model", "size", "quant", "engine", "batch", "threads", "train"),
}
COMMON = ("scope",)   # any family: ``<family>/scope=family`` is the record of a family that failed as a whole
FLAGS = {"int8": ("train",)}   # named without a value: ``int8/model=digits_cnn/train``


def order(family: str) -> tuple[str, ...]:
    """The fields of ``family``'s ids, in id order (a family not declared here has only COMMON)."""
    return ID_FIELDS.get(family, ()) + COMMON


def case_id(family: str, **values) -> str:
    """The record id of one case: ``family`` and the given fields in declared order (a field given
    as None is left out; a flag given as True is named alone).  An undeclared field is refused."""
    fields_of = order(family)
    unknown = sorted(set(values) - set(fields_of))
    if unknown:
        declared = f"declared: {', '.join(fields_of)}" if family in ID_FIELDS else \
            f"the family is not declared; declared families: {', '.join(sorted(ID_FIELDS))}"
        raise ValueError(f"case id: {family} ids have no field {', '.join(unknown)} ({declared}); "
                         "declare it in study/cases.py")
    parts = [family]
    for name in fields_of:
        value = values.get(name)
        if value is None or value is False:
            continue
        if value is True and name in FLAGS.get(family, ()):
            parts.append(name)
        else:
            text = str(value)
            if "/" in text or "=" in text or not text:
                raise ValueError(f"case id: {family} field {name}: {text!r} cannot stand in an id")
            parts.append(f"{name}={text}")
    return "/".join(parts)


def fields(record_id: str) -> tuple[str, dict[str, str | bool]]:
    """(family, {field: value as text, or True for a flag}) of any record id, old or new."""
    family, *parts = record_id.split("/")
    out: dict[str, str | bool] = {}
    for part in parts:
        name, sep, value = part.partition("=")
        out[name] = value if sep else True
    return family, out


CASE_KEYS = {"size": ("input_size",), "blas": ("blas_env",)}
"""The case field an id field names where the two are spelled differently (others: the same name)."""
ONLY_CASE_KEYS = {"target": ("target_kind",)}
"""Id fields whose case field of the same name holds something else: the id's ``target`` is the
target's kind (``cuda``), the case's ``target`` the whole target (a dict); compare the kind."""
SQUARE = {"numpy_gemm": {"n": ("m", "k")}}
"""Families whose id names one dimension of a square problem: the case's other dimensions equal it."""
SIZED = ("e2e", "e2e_tune")
"""Families whose every measured case has an input size (its id's size=, from case.input_size)."""
FREE = ("graph",)
"""Families whose id values are labels of their own (a pass step "03-FoldConstant" for case step 3)."""


ENGINE_GROUPS = {
    "e2e": {"tf": "A", "ort": "A-peer", "tflite": "A-peer", "tvm_b": "B", "tvm_c": "C", "tvm_d": "D",
            "tvm_d_prepack": "D", "tvm_rules": "D", "tvm_rules_tuned": "D"},
    "int8": {"tvm_fp32": "C", "tvm_int8": "E", "tvm_fp32_tuned": "D", "tvm_int8_tuned": "F", "tvm_qdq": "QDQ\u2192TVM",
             "tvm_fp32_rules": "D", "tvm_int8_rules": "F", "tvm_fp32_rules_avx2": "D", "tvm_int8_rules_avx2": "F",
             "ort_fp32": "peer", "ort_qdq": "peer", "tflite_fp32": "peer", "tflite_int8": "peer"},
}
"""The seed's group (A-F) of each engine a family times: its records' ``case.group``, which charts print."""


def api_slug(old_api: str) -> str:
    """The id value of a migration note's old API (graph ``api=``): its name with every character an id
    cannot hold replaced."""
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in old_api).strip("_")


def _composed_problems(family: str, named: dict, case: dict) -> list[str]:
    """Id values made of case fields: a graph step ``05-FuseTIR`` of step 5 and pass FuseTIR, a calibration
    ``quant=mse-int8`` of method and scheme, an API note's slug, an engine's group.  The pages label rows
    with the case's fields: two steps' pass names swapped reversed the fusion finding, two methods
    swapped put one's errors under the other's name."""
    want = {}
    if family == "graph":   # each where the case holds its fields
        step, name = case.get("step"), case.get("pass")
        if "step" in case or "pass" in case:
            want["step"] = f"{step:02d}-{name}" if type(step) is int and isinstance(name, str) else None
        want.update({k: case[k] for k in ("unit", "pipeline", "model", "relay_pass") if k in case})
        if "old_api" in case:
            want["api"] = api_slug(case["old_api"]) if isinstance(case["old_api"], str) else None
    if family == "int8" and ("method" in case or "scheme" in case):
        want["quant"] = f"{case.get('method')}-{case.get('scheme')}"
        if "quant" not in named:   # the INT8 page takes a record whose case names a method for a calibration row
            return [f"case.{'method' if 'method' in case else 'scheme'}: a calibration's field in a case whose id names "
                    "no quant= (an engine's timing is no calibration row)"]
    out = [f"case: {want[k]!r:.60} is what its fields make of the id's {k}, not {v!r:.60} (a record's case and id "
           "name one problem)" for k, v in named.items() if k in want and v is not True and str(want[k]) != v]
    if family in ENGINE_GROUPS and "group" in case and case["group"] != ENGINE_GROUPS[family].get(case.get("engine")):
        out.append(f"case.group: {case['group']!r:.40} is not the group of engine {case.get('engine')!r:.40} "
                   f"({ENGINE_GROUPS[family].get(case.get('engine'))!r}; study/cases.py)")
    return out


TIMED = {"machine_peak": None, "numpy_gemm": None, "gemm_hand": None, "gemm_tvm": None, "e2e": None,
         "graph": "step", "int8": "engine"}
"""The cases a family times (None: every case; a field: the cases whose id names it); the others are
evidence (a search, a quantization's scores, a pass's IR).  An ok record of a timed case holds samples:
a NumPy GEMM made evidence without them stopped the build in the GFLOPS chart."""


def timed(record_id: str) -> bool:
    """Whether an ok record of this case is a timing (TIMED), not evidence."""
    family, named = fields(record_id)
    return family in TIMED and (TIMED[family] is None or TIMED[family] in named) and "scope" not in named


POSITIVE = ("threads", "batch", "input_size", "m", "n", "k", "iters")
"""Case fields that count threads, inputs or elements: an integer of at least 1, or null (a GEMM
on threads=0 or "-4" loaded, and its speed-ups were computed against it)."""


def _positive_problems(case: dict) -> list[str]:
    return [f"case.{key}: {case[key]!r:.40} is not a count >= 1 (or null)" for key in POSITIVE
            if case.get(key) is not None and not (type(case[key]) is int and case[key] >= 1)]


IN_OBJECT = {"gemm_tvm": {"mr": "tiles", "nr": "tiles", "kc": "tiles", "mc": "tiles"}}
"""Id fields a family's case holds inside one of its objects (the grid's tiles); every other id field is a field of
the case itself, where the pages read it ('model' moved into the quant object broke the INT8 chart)."""
CASE_OBJECTS = frozenset({"target", "quant", "tiles"})
"""The case fields that are objects (a GEMM's target and tiles, a quantization's settings); every other is a label."""


def case_problems(record_id: str, case: dict, status: str | None = None) -> list[str]:
    """A record's case must say what its id says: each id field the case also holds (under its own
    name or CASE_KEYS) has the same value, so that a page never labels one problem with another's
    figures (n=2048 in the id, 8192 in the case the GFLOPS are computed from).  The id names only
    its family's declared fields, and an ok record no ``scope`` (a family that failed as a whole):
    a field of no meaning (``/zz=1``) spelled one case a second way, and the older spelling stayed a
    current record the pages' lookups took (cases.canonical_id cannot fold a field it does not know)."""
    family, named = fields(record_id)
    nested = [k for k, v in case.items() if isinstance(v, (list, dict)) and k not in CASE_OBJECTS]
    if nested:   # a label the checks look up in a table: ['avx2'] stopped them (unhashable)
        return [f"case.{nested[0]}: expected a label (text, number, true/false or null), got "
                f"{type(case[nested[0]]).__name__}"]
    out = _positive_problems(case)
    if family in ID_FIELDS:   # a family of free labels too: its values are labels, its fields declared
        out.extend(f"id: {name!r:.40} is not a field of {family} ids ({', '.join(order(family))}; study/cases.py)"
                   for name in named if name not in order(family))
    out.extend(_composed_problems(family, named, case))
    if family in FREE:
        return out
    if status == "ok" and "scope" in named:
        out.append("id: scope= names a family that failed as a whole; an ok record measures a case")
    if status == "ok" and family in SIZED and type(case.get("input_size")) is not int:
        # an id without size= and a case without input_size was a second spelling of a sized case
        out.append(f"case.input_size: {case.get('input_size')!r:.40} is not an image size; an ok {family} record "
                   "names the input it measured")
    for name, value in named.items():
        if value is True:
            continue
        keys = [k for k in ONLY_CASE_KEYS.get(name, (name,) + CASE_KEYS.get(name, ())) if k in case]
        keys += [k for k in SQUARE.get(family, {}).get(name, ()) if k in case]
        nested = IN_OBJECT.get(family, {}).get(name)
        held = keys or name == "scope" or (nested is not None and isinstance(case.get(nested), dict) and name in case[nested]) \
            or (family == "int8" and name == "quant" and "method" in case and "scheme" in case)   # _composed_problems
        if not held:   # the pages look a case up by its fields: "case": {} broke the INT8 page
            out.append(f"case.{name}: missing; the id names {name}={value!r:.40} (a record's case holds each field "
                       "its id names)")
        for key in keys:
            if str(case[key]) != value:
                out.append(f"case.{key}: {str(case[key])!r:.40} differs from the id's {name}={value!r:.40} "
                           "(a record's case and id name one problem)")
    return out


def canonical_id(record_id: str, case: dict) -> str:
    """The id ``case_id`` writes for the case a record names: its id's fields in declared order, and
    each declared field the id leaves out that the case holds (under its own name or CASE_KEYS),
    such as ``size`` for an e2e case with its input_size. Two spellings of one case (fields in another
    order, an optional field left out) are one case: merge keeps one current record of it, and a
    run bound by the citation rule writes only this spelling. A family of free labels (FREE) has its
    fields put in declared order, nothing filled in from its case (a label is not the case's value).
    ``record_id`` itself for an undeclared family or field, or a value no id can hold."""
    family, named = fields(record_id)
    if family not in ID_FIELDS or not isinstance(case, dict):
        return record_id
    values = dict(named)
    if family in FREE:   # graph/pipeline=a/model=b and graph/model=b/pipeline=a are one step
        if any(value is True for value in values.values()):
            return record_id
        try:
            return case_id(family, **values)
        except (ValueError, TypeError):
            return record_id
    for name in order(family):
        found = [case[k] for k in ONLY_CASE_KEYS.get(name, (name,) + CASE_KEYS.get(name, ()))
                 if isinstance(case.get(k), (str, int)) and not isinstance(case.get(k), bool)]
        if name not in values and found:
            values[name] = found[0]
    try:
        return case_id(family, **values)
    except (ValueError, TypeError):   # a field named "family" (numpy_gemm/family=x) is no keyword case_id takes
        return record_id
