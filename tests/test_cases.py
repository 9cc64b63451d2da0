"""Case ids are declared once (study/cases.py): every id of today's runs is what the declaration
makes of its fields, no other module spells one, and a new field is a change of that file alone."""
import json
import re

import pytest
from conftest import ROOT

from study import cases


def _ids():
    out = []
    for path in sorted((ROOT / "results" / "runs").glob("*/records.jsonl")):
        out += [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    return out


def test_every_id_in_declared_order_is_what_the_declaration_makes():
    ids = _ids()
    made = 0
    for rid in ids:
        family, values = cases.fields(rid)
        declared = cases.order(family)
        if not set(values) <= set(declared):
            continue   # an id of an older shape (a field since renamed): read, never made again
        assert [k for k in declared if k in values] == list(values), rid
        assert cases.case_id(family, **values) == rid
        made += 1
    assert made >= 0.9 * len(ids)


def test_the_newest_run_of_each_family_uses_only_declared_fields():
    newest = {}
    for path in sorted((ROOT / "results" / "runs").glob("*/records.jsonl")):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                rec = json.loads(line)
                newest.setdefault(rec["experiment"], {})[rec["id"]] = path.parent.name
    for family, ids in newest.items():
        last = max(ids.values())
        for rid in (i for i, run in ids.items() if run == last):
            fam, values = cases.fields(rid)
            assert set(values) <= set(cases.order(fam)), f"{rid} ({last})"


def test_an_undeclared_field_or_a_value_that_breaks_the_id_is_refused():
    with pytest.raises(ValueError, match="e2e ids have no field layout .*study/cases.py"):
        cases.case_id("e2e", model="m", layout="NCHWc")
    with pytest.raises(ValueError, match="cannot stand in an id"):
        cases.case_id("e2e", model="a/b")
    with pytest.raises(ValueError, match="the family is not declared"):
        cases.case_id("nonesuch", model="m")
    assert cases.case_id("nonesuch", scope="family") == "nonesuch/scope=family"


def test_a_new_field_is_one_declaration_and_leaves_every_old_id_alone(monkeypatch):
    before = cases.case_id("e2e", model="resnet18_v1", size=224, engine="tvm_rules", batch=1, threads=2)
    fields = list(cases.ID_FIELDS["e2e"])
    fields.insert(fields.index("engine") + 1, "layout")
    monkeypatch.setitem(cases.ID_FIELDS, "e2e", tuple(fields))
    assert cases.case_id("e2e", model="resnet18_v1", size=224, engine="tvm_rules", batch=1, threads=2) == before
    assert cases.case_id("e2e", model="resnet18_v1", size=224, engine="tvm_rules", layout="NCHW16c", batch=1,
                         threads=2) == "e2e/model=resnet18_v1/size=224/engine=tvm_rules/layout=NCHW16c/batch=1/threads=2"
    # reportgen's lookups go through the same declaration
    from reportgen.data import queries
    monkeypatch.setitem(cases.ID_FIELDS, "numpy_gemm", ("dtype", "n", "threads", "blas", "pinning"))
    assert queries.numpy_id("float32", 1024, 2, "best") == "numpy_gemm/dtype=float32/n=1024/threads=2/blas=best"


def test_no_module_but_the_declaration_spells_a_case_id():
    families = "|".join(sorted(cases.ID_FIELDS))
    spelled = re.compile(rf'''["'](?:{families})/[a-z_]+=''')
    offenders = []
    for folder in ("experiments", "reportgen", "study"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "cases.py" and path.parent.name == "study":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
                code = line.split("#")[0]
                if spelled.search(code) and '"""' not in code and "Example" not in code:
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
