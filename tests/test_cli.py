"""The CLI and the README agree; trace gets from an id to samples, log and command."""
import re

from click.testing import CliRunner
from conftest import ROOT
from helpers import record, write_run

from reportgen import cli


def test_every_command_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in cli.cli.commands:
        assert re.search(rf"`reportgen {name}\b", readme), f"README does not document `reportgen {name}`"


def test_every_command_has_an_example():
    for name, command in cli.cli.commands.items():
        assert "Example: reportgen " in (command.help or ""), name


def test_trace_prints_samples_log_and_command(tmp_path):
    run_id = "20260101T000000Z-quick-f6ab9f827cfd"
    write_run(tmp_path / "results", run_id, [record(run_id)])
    result = CliRunner().invoke(cli.cli, ["--root", str(tmp_path), "trace",
                                          "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured#gflops_p50"])
    assert result.exit_code == 0, result.output
    assert f"run      {run_id} (quick)" in result.output
    assert "samples  [0.001, 0.0011, 0.0012]" in result.output
    assert "  | line one\n  | line two" in result.output   # each log line behind a mark
    assert "reportgen retest --profile quick --only numpy_gemm --force" in result.output


def test_trace_unknown_id_is_a_clear_error(tmp_path):
    run_id = "20260101T000000Z-quick-f6ab9f827cfd"
    write_run(tmp_path / "results", run_id, [record(run_id)])
    result = CliRunner().invoke(cli.cli, ["--root", str(tmp_path), "trace", "numpy_gemm/n=1"])
    assert result.exit_code != 0
    assert "trace: no record 'numpy_gemm/n=1'" in str(result.exception)


def test_compare_calls_a_real_slowdown_and_ignores_noise(tmp_path):
    import random
    rnd = random.Random(0)
    fast = [0.001 * (1 + rnd.uniform(-0.01, 0.01)) for _ in range(15)]
    slow = [0.0013 * (1 + rnd.uniform(-0.01, 0.01)) for _ in range(15)]
    same = [0.001 * (1 + rnd.uniform(-0.01, 0.01)) for _ in range(15)]
    other = "numpy_gemm/dtype=float32/n=64/threads=1/blas=configured"
    write_run(tmp_path / "results", "20260101T000000Z-quick-f6ab9f827cfd", [record("20260101T000000Z-quick-f6ab9f827cfd", samples=fast),
              record("20260101T000000Z-quick-f6ab9f827cfd", case_id=other, samples=fast)])
    write_run(tmp_path / "results", "20260102T000000Z-quick-f6ab9f827cfd", [record("20260102T000000Z-quick-f6ab9f827cfd", samples=slow),
              record("20260102T000000Z-quick-f6ab9f827cfd", case_id=other, samples=same)])
    result = CliRunner().invoke(cli.cli, ["--root", str(tmp_path), "compare", "20260101T000000Z-quick-f6ab9f827cfd",
                                          "20260102T000000Z-quick-f6ab9f827cfd"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line.split()[-1] for line in result.output.splitlines()[1:]}
    assert lines["numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"] == "worse"
    assert lines[other] == "same"


def test_machines_names_this_machine_and_the_published_one(tmp_path):
    from study import environment, identity
    run_id = "20260101T000000Z-quick-f6ab9f827cfd"
    write_run(tmp_path / "results", run_id, [record(run_id)])
    result = CliRunner().invoke(cli.cli, ["--root", str(tmp_path), "machines"])
    assert result.exit_code == 0, result.output
    rows = result.output.splitlines()
    assert rows[0].split()[:3] == ["machine", "cpu", "isa"]
    assert rows[1].endswith("<- published") or "<- published <- this machine" in rows[1]
    here = identity.machine_id(environment.hardware())
    assert here in result.output   # marked in the table, or named as a machine without runs
    assert "results/runs/<run>/" in rows[-1]
