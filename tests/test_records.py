"""Record contract: the good record passes; each bad file gets its exact message."""
from pathlib import Path

import pytest
from helpers import record

from reportgen.data import load
from study import schema
from reportgen.errors import ReportError

BAD = Path(__file__).parent / "data" / "bad_records"


def test_good_record_has_no_problems():
    rec = record()
    rec["log"]["sha256"] = "a" * 64
    assert schema.record_problems(rec) == []


def test_pending_log_only_allowed_while_writing():
    rec = record()
    assert schema.record_problems(rec, pending_log=True) == []
    assert schema.record_problems(rec) == ["log.sha256: expected 64 hex digits, got 'pending'"]


@pytest.mark.parametrize("case", sorted(BAD.glob("*.jsonl")), ids=lambda p: p.stem)
def test_bad_record(case):
    want = case.with_suffix(".err").read_text(encoding="utf-8").splitlines()
    with pytest.raises(ReportError) as err:
        load.read_jsonl(case)
    assert [p for p in err.value.problems] == [f"{case}:1: {w}" for w in want]


def test_every_field_is_documented_once():
    for name, (_types, doc) in schema.RECORD_FIELDS.items():
        assert doc and isinstance(doc, str), name


def test_dumps_refuses_nan():
    rec = record(samples=(float("nan"),))
    with pytest.raises(ValueError):
        schema.dumps(rec)
