"""Families are declared once, in their own modules; the profiles give them params only.

``study.family.declared`` reads the declarations from the source; ``read_profile`` joins them
with a profile's params and reports every problem at once, one line each naming file and field.
"""
from pathlib import Path

import pytest

from reportgen.commands import retest
from reportgen.errors import ReportError
from study import family

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = {"machine_peak", "numpy_gemm", "gemm_hand", "gemm_tvm", "graph", "e2e_tune", "e2e", "int8"}
TIMEOUTS = '{"quick": 5, "standard": 5, "full": 5}'


def test_every_profile_gives_every_declared_family_its_params():
    declared, problems = family.declared(ROOT)
    assert problems == [] and set(declared) == FAMILIES
    for profile in family.PROFILES:
        families = retest.read_profile(ROOT, profile)
        assert set(families) == FAMILIES, profile   # full.yaml once lost int8: now an error, not a silent gap
        assert families["int8"]["module"] == "experiments.int8_quant" and families["int8"]["uses"] == ["e2e_tune"]
        assert families["gemm_tvm"]["rpc"] is True and not families["numpy_gemm"]["rpc"]
        assert families["machine_peak"]["depends"] == ["experiments/kernels/fma_peak.c"]
        assert all(isinstance(f["params"], dict) and f["params"] for f in families.values())
    assert retest.read_profile(ROOT, "full")["int8"]["timeout_s"] == 7200
    assert retest.read_profile(ROOT, "quick")["machine_peak"]["timeout_s"] == 300


def _project(tmp_path, modules, profile_text):
    (tmp_path / "experiments" / "configs").mkdir(parents=True)
    for name, declaration in modules.items():
        (tmp_path / "experiments" / f"{name}.py").write_text(
            f"from study.family import Family\n\nFAMILY = {declaration}\n", encoding="utf-8")
    (tmp_path / "experiments" / "configs" / "quick.yaml").write_text(profile_text, encoding="utf-8")
    return tmp_path


def _problems(root):
    with pytest.raises(ReportError) as err:
        retest.read_profile(root, "quick")
    return err.value.problems


def test_every_problem_is_one_line_naming_file_and_field(tmp_path):
    root = _project(tmp_path, {
        "a": f'Family(name="a", timeout_s={TIMEOUTS})',
        "b": f'Family(name="b", timeout_s={TIMEOUTS}, uses=["a", "gone"])',
        "c": f'Family(name="c", timeout_s={TIMEOUTS})',
        "d": 'Family(name="d", timeout_s={"quick": 5})',
        "e": f'Family(name="e", timeout_s={TIMEOUTS}, colour="red")',
        "f": f'Family(name="f", timeout_s={TIMEOUTS}, depends=["experiments/helper.py"])',
        "g": f'Family(name="a", timeout_s={TIMEOUTS})',
    }, "profile: standard\nextra: 1\nfamilies:\n  b: {}\n  a: {}\n  c: [1]\n  zz: {}\n")
    assert _problems(root) == [
        "experiments/d.py: FAMILY.timeout_s.standard: expected seconds > 0, got None",
        "experiments/d.py: FAMILY.timeout_s.full: expected seconds > 0, got None",
        "experiments/e.py: FAMILY.colour: unknown field (known: name, timeout_s, rpc, uses, depends, params, claims_of)",
        "experiments/f.py: FAMILY.depends: 'experiments/helper.py' is Python: imports are found from the code",
        "experiments/g.py: FAMILY.name: 'a' is already declared in experiments/a.py",
        "experiments/configs/quick.yaml: extra: unknown field (known: profile, families)",
        "experiments/configs/quick.yaml: profile: expected 'quick', got 'standard'",
        "experiments/configs/quick.yaml: families.b: it uses 'a', which must come before it (families run in file order)",
        "experiments/configs/quick.yaml: families.b: it uses 'gone', which this profile does not list",
        "experiments/configs/quick.yaml: families.c: expected a mapping of params, got list",
        "experiments/configs/quick.yaml: families.zz: no module in experiments/ declares it "
        "(FAMILY = Family(name='zz', ...))",
    ]


SIMPLE_CASES = {
    "missing": ({"a": "", "b": ""}, "  a: {n: 1}\n",
                "families.b: missing (declared in experiments.b); every profile gives every family its params"),
    "uses_later": ({"e2e": ', uses=["e2e_tune"]', "e2e_tune": ""}, "  e2e: {}\n  e2e_tune: {}\n",
                   "families.e2e: it uses 'e2e_tune', which must come before it (families run in file order)"),
    "literal": ({"a": None}, "  a: {}\n", None),
    "param_typo": ({"a": ', params=("sizes", "seed")'}, "  a: {sizes: [1], sede: 0}\n",
                   "families.a.sede: unknown param (the family reads sizes, seed; declared in experiments.a)"),
}


@pytest.mark.parametrize("case", sorted(SIMPLE_CASES))
def test_one_problem_one_line(tmp_path, case):
    modules, families, want = SIMPLE_CASES[case]
    declarations = {name: f'Family(name="{name}", timeout_s={TIMEOUTS}{more})' if more is not None
                    else f'Family(name="{name}", timeout_s=TIMEOUTS)' for name, more in modules.items()}
    problems = _problems(_project(tmp_path, declarations, "profile: quick\nfamilies:\n" + families))
    if want is None:   # a declaration is read, not run: a name where a literal belongs is refused
        assert problems[0] == ("experiments/a.py:3: FAMILY.timeout_s: expected a literal value "
                               "(the declaration is read, not run)")
    else:
        assert problems == [f"experiments/configs/quick.yaml: {want}"]


def test_params_reach_the_family_unchanged(tmp_path):
    root = _project(tmp_path, {"a": f'Family(name="a", timeout_s={TIMEOUTS}, rpc=True)'},
                    "profile: quick\nfamilies:\n  a: {sizes: [1, 2], tune: {trials: 0}}\n")
    assert retest.read_profile(root, "quick") == {"a": {"module": "experiments.a", "timeout_s": 5, "rpc": True,
                                                        "params": {"sizes": [1, 2], "tune": {"trials": 0}},
                                                        "uses": [], "depends": [], "claims_of": {}}}


def test_a_typo_in_a_real_profile_fails_in_seconds_naming_file_and_key(tmp_path):
    """int8's paired_blocks misspelt in standard.yaml: without the declared params the family would
    silently time its rule engines unpaired."""
    import shutil
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "experiments" / "configs" / "standard.yaml"
    text = path.read_text(encoding="utf-8")
    int8 = text.index("\n  int8:\n")
    typo = text[:int8] + text[int8:].replace("paired_blocks:", "paired_block:", 1)
    path.write_text(typo, encoding="utf-8")
    with pytest.raises(ReportError) as err:   # read_profile runs before any family: nothing is measured
        retest.read_profile(tmp_path, "standard")
    assert err.value.problems == ["experiments/configs/standard.yaml: families.int8.paired_block: unknown param "
                                  "(the family reads " + ", ".join(family.declared(ROOT)[0]["int8"].params)
                                  + "; declared in experiments.int8_quant)"]
