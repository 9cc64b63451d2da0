"""The retest -> harness hand-off (study.spec.Spec): written and read by one class, and a spec that
does not match it fails at once naming the file and the field."""
import json

import pytest

from experiments import harness
from study.spec import Spec


def _spec(tmp_path, **over):
    base = dict(experiment="fam", run_id="20260101T000000Z-quick-f6ab9f827cfd", params={"seed": 0},
                log_file=str(tmp_path / "fam.log"), log_ref="runs/x/logs/fam.log",
                records_file=str(tmp_path / "fam.jsonl"),
                artifacts_dir=str(tmp_path / "runs" / "x" / "artifacts" / "fam"), fingerprint="f")
    base.update(over)
    return base


def test_a_written_spec_reads_back_and_drives_the_harness(tmp_path):
    path = tmp_path / "fam.spec.json"
    Spec(**_spec(tmp_path, upstream={"e2e_tune": ["a.jsonl"]}, upstream_params={"e2e_tune": {"jobs": []}})).write(path)
    h = harness.Harness(Spec.read(path))
    assert (h.experiment, h.params, h.force, h.upstream) == ("fam", {"seed": 0}, False, {"e2e_tune": ["a.jsonl"]})
    assert h.spec.upstream_params == {"e2e_tune": {"jobs": []}}
    assert harness.Harness(_spec(tmp_path)).upstream == {}   # a plain dict is checked the same way


@pytest.mark.parametrize("change, field, words", [
    ({"paramz": {}}, "paramz", "unknown field"),
    ({"run_id": None}, "run_id", "expected str"),
    ({"force": "yes"}, "force", "expected bool"),
    ({"params": [1]}, "params", "expected dict"),
])
def test_a_spec_that_does_not_match_fails_naming_file_and_field(tmp_path, change, field, words):
    path = tmp_path / "bad.spec.json"
    path.write_text(json.dumps(dict(_spec(tmp_path), **change)), encoding="utf-8")
    with pytest.raises(ValueError) as err:
        Spec.read(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and repr(field) in message and words in message


def test_a_missing_field_and_unreadable_json_are_named(tmp_path):
    data = _spec(tmp_path)
    del data["fingerprint"]
    path = tmp_path / "short.spec.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"short\.spec\.json: 'fingerprint': missing"):
        Spec.read(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot read the spec"):
        Spec.read(path)
