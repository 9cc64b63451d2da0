"""The tenth round of the hostile corpus (issue #29): figures a page divides by or prints whole (an
operator profile whose total is 0, subnormal, or less than its own top row; durations of 1e300 s;
extra fields no check typed), records.jsonl messages that named a record's index instead of its
line, a built site given to `trace` with --site-dir (a FIFO, a numbers.json of another shape), and
command-line values: an empty --machine, and a --target that no load could read back.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from helpers import record, write_run
from test_hostile_round4 import CASES, RUN, _expect, _reseal

from reportgen import cli
from reportgen.commands import retest, trace
from reportgen.data import load
from reportgen.errors import ReportError
from study import schema

E2E_RUN = "20261129T182105Z-standard-f6ab9f827cfd"   # a committed run of e2e records with operator profiles
TVM_C = "e2e/model=resnet18_v1/engine=tvm_c/batch=1/threads=2"


def _e2e(path, value):
    """The committed e2e run with one field of its ResNet-18 TVM C record set to ``value``, resealed."""
    def mutate(results):
        run = results / "runs" / E2E_RUN
        shutil.copytree(ROOT / "results" / "runs" / E2E_RUN, run)
        recs = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines() if line.strip()]
        node = next(r for r in recs if r["id"] == TVM_C)
        *head, last = path
        for key in head:
            node = node[key]
        node[last] = value
        (run / "records.jsonl").write_text("".join(schema.dumps(r) + "\n" for r in recs))
        _reseal(run)
    return mutate


MUTATIONS = {
    "op_profile_total_zero": _e2e(("extra", "op_profile_total_s"), 0.0),
    "op_profile_top_twice_total": _e2e(("extra", "op_profile", 0, "seconds"), 4.2),
    "op_profile_total_subnormal": _e2e(("extra", "op_profile_total_s"), 5e-324),
    "cold_seconds_1e306": _e2e(("extra", "cold_seconds"), 1e306),
    "compile_seconds_1e300": _e2e(("extra", "compile_seconds"), 1e300),
    "import_seconds_text": _e2e(("extra", "import_seconds"), "soon"),
    "import_seconds_negative": _e2e(("extra", "import_seconds"), -5.0),
    "kernel_calls_list": _e2e(("extra", "kernel_calls"), [1, 2]),
    "kernel_calls_text_values": _e2e(("extra", "kernel_calls"), {"a": "many"}),
    "kernel_calls_1e300": _e2e(("extra", "kernel_calls"), {"a": 1e300}),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_round10_records_are_refused_in_one_line_naming_the_file_and_field(case, tmp_path):
    """Before round 10 these loaded, then ended the build in 'internal error' (ZeroDivisionError on a
    profile total of 0; IndexError formatting inf from 1e306 s or a subnormal total; TypeError on a
    text import time or kernel call count) or published a kernel's share of 201 %, an Amdahl speed-up
    of -153x, a compile time of 301 digits or a negative import time."""
    refused_in_one_line(MUTATIONS[case], case, tmp_path / "results")


def refused_in_one_line(mutate, case, results):
    """``mutate(results)``, then load refuses it: a line naming a file under results and the case's
    field, holding its expected words, and no message of two lines."""
    mutate(results)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    lines, field = err.value.problems, CASES[case].get("field", "")
    assert any(p.startswith(str(results)) and f": {field}" in p and _expect(case) in p for p in lines), lines
    assert not [p for p in lines if "\n" in p]


def _log(**change):
    def mutate(results):
        rec = record(RUN)
        rec["log"].update(change)
        write_run(results, RUN, [rec])
    return mutate


LONG = {"log_lines_1e6_entries": _log(lines=[1] * 10 ** 6), "log_sha256_99k_chars": _log(sha256="a" * 99_000)}


@pytest.mark.parametrize("case", sorted(LONG))
def test_a_refused_value_is_quoted_short(case, tmp_path):
    """A log.lines of a million entries was refused in one line of 3,000,138 characters, a sha256 of
    99,000 characters in one of 99,117: the value is quoted cut, as elsewhere."""
    results = tmp_path / "results"
    LONG[case](results)
    with pytest.raises(ReportError) as err:
        load.read_runs(results)
    (line,) = err.value.problems
    assert f": {CASES[case]['field']}: " in line and _expect(case) in line and len(line) < 400, line[:300]


def test_the_committed_results_hold_to_the_round10_rules():
    assert load.read_runs(ROOT / "results")


def test_a_message_names_the_records_line_in_the_file_after_blank_lines(tmp_path):
    """records_blank_lines_line_numbers: a duplicate record after blank lines was named as
    records.jsonl:2 (its index) while it is on line 7 of the file, first seen on line 4."""
    results = tmp_path / "results"
    run = write_run(results, RUN, [record(RUN)])
    line = (run / "records.jsonl").read_text().strip()
    (run / "records.jsonl").write_text("\n\n\n" + line + "\n\n\n" + line + "\n")
    manifest = json.loads((run / "run.json").read_text())
    manifest["experiments"]["numpy_gemm"]["records"] = 2
    (run / "run.json").write_text(json.dumps(manifest))
    _reseal(run)
    for _ in range(2):   # a second read takes the validated-file shortcut: the same line numbers
        with pytest.raises(ReportError) as err:
            load.read_runs(results)
        (dup,) = [p for p in err.value.problems if "duplicate id" in p]
        assert _expect("records_blank_lines_line_numbers") in dup and "(first at line 4)" in dup, dup


# -- trace reads a built site given with --site-dir ----------------------------------------------------

FIGURE = "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured#x"
NUMBERS = {
    "trace_numbers_not_a_list": '{"a": 1}',
    "trace_numbers_entry_incomplete": json.dumps([{"id": FIGURE, "page": "p.md", "derived": {"formula": "a"}}]),
}


@pytest.mark.parametrize("case", sorted(NUMBERS))
def test_trace_refuses_a_numbers_json_of_another_shape_in_one_line(case, tmp_path):
    """A dict, a list of numbers or a derived entry without its operands ended `reportgen trace` in
    'internal error TypeError/KeyError'."""
    (tmp_path / "numbers.json").write_text(NUMBERS[case], encoding="utf-8")
    with pytest.raises(ReportError) as err:
        trace.derived_lines(tmp_path, FIGURE)
    (line,) = err.value.problems
    assert line.startswith(str(tmp_path / "numbers.json")) and _expect(case) in line, line


def test_trace_still_shows_a_derived_figure_a_build_indexed(tmp_path):
    operand = {"name": "a", "value": 2.0, "unit": "s", "record": "r", "run": "x"}
    (tmp_path / "numbers.json").write_text(json.dumps(
        [{"id": FIGURE, "page": "p.md", "derived": {"formula": "a / b", "result": 1.0, "operands": [operand]}}]))
    assert trace.derived_lines(tmp_path, FIGURE)[1:] == ["formula  a / b = 1.0", "shown on p.md",
                                                         "operand  a = 2.0 s  record r  run x"]
    assert trace.derived_lines(tmp_path / "none", FIGURE) == []


def test_trace_never_blocks_on_a_fifo_in_the_site(tmp_path):
    """trace_numbers_fifo, trace_machine_json_fifo: a FIFO site/numbers.json or machine.json blocked
    `reportgen trace` for ever (read_text on a FIFO waits for a writer)."""
    for name in ("numbers.json", "machine.json"):
        os.mkfifo(tmp_path / name)
    code = ("import sys; from reportgen.commands import trace; from reportgen.errors import ReportError\n"
            f"print('machine', trace._site_machine({str(tmp_path)!r}))\n"
            f"try:\n    trace.derived_lines({str(tmp_path)!r}, 'x')\n"
            "except ReportError as exc:\n    print('refused', exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.stdout.splitlines()[0] == "machine None", done
    assert done.stdout.splitlines()[1] == f"refused {tmp_path / 'numbers.json'}: " \
        "is not a plain file (a FIFO, device or folder); only plain files are read", done
    assert _expect("trace_numbers_fifo") in done.stdout


# -- command-line values -------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["build", "trace"])
def test_an_empty_machine_option_is_refused_never_read_as_the_default(command, monkeypatch):
    """cli_machine_empty: `reportgen build --machine "$M"` with M unset built and published the
    default machine; `trace --machine ''` traced the default machine's record."""
    from reportgen.commands import build
    called = []
    monkeypatch.setattr(build, "build", lambda *a, **k: called.append(k))
    monkeypatch.setattr(trace, "trace", lambda *a, **k: called.append(a) or "")
    args = [command, "--machine", ""] + (["x"] if command == "trace" else [])
    with pytest.raises(ReportError) as err:
        cli.cli.main(args, standalone_mode=False)
    assert str(err.value).startswith(_expect("cli_machine_empty")) and not called


TARGETS = {
    "target_deep_json": "[" * 100_000,
    "target_nan": '{"kind": "cuda", "arch": NaN}',
    "target_escape_in_value": '{"kind": "cuda", "arch": "\\u001b[2J\\u202e"}',
}


@pytest.mark.parametrize("case", sorted(TARGETS))
def test_a_target_argument_is_json_a_load_reads_back(case):
    """--target of 100000 '[' ended in 'internal error RecursionError'; NaN, or an escape sequence in a
    string, was accepted and stored with the run, which load then refuses (a measured run lost)."""
    for parse in (lambda text: retest._local_target(text, {"gemm_tvm": {"rpc": True, "params": {}}}),
                  lambda text: retest._rpc_setup("host:9190", "key", text, {})):
        with pytest.raises(ReportError) as err:
            parse(TARGETS[case])
        (line,) = err.value.problems
        assert line.startswith(_expect(case)), line


def test_a_valid_target_argument_still_reaches_the_families():
    out = retest._local_target('{"kind": "cuda", "arch": "sm_90"}', {"gemm_tvm": {"rpc": True, "params": {}}})
    assert out["gemm_tvm"]["params"]["target"] == {"kind": "cuda", "arch": "sm_90"}


SPECIAL = {**{case: None for case in NUMBERS}, **{case: None for case in TARGETS}, **{case: None for case in LONG},
           "records_blank_lines_line_numbers": None, "trace_numbers_fifo": None, "trace_machine_json_fifo": None,
           "cli_machine_empty": None}
