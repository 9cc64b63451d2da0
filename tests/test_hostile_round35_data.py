"""The thirty-fifth round of the hostile corpus (issue #29), data side, attack only, then fixed.

A run 10x faster than the machine's previous run of a case carried the jump flag beside its figure
only when its record claimed the same fingerprint: a fingerprint is the record's own free claim, so
another 64 hex digits took the flag off (the jump stayed in the history page's second table).  Runs
alternating two fingerprints, each under 2x faster than the one before (1.0, 0.6, 0.36, 0.22, 0.13),
were listed nowhere: the baseline a staircase is measured against started again at each change of
fingerprint.  Now every record is compared with the one before it and with a baseline kept across
fingerprints, and the figures of both kinds of jump carry a flag (the words say which).  The GEMM
goals table showed a share of the measured peak above 100 % as "met", without the above-peak flag.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

from reportgen.pages import history

MUTATIONS = {}
SPECIAL = {"jump_fingerprint_claim": None}


class _Run:
    def __init__(self, run_id, p50, fingerprint, commit="a" * 40):
        self.run_id, self.machine = run_id, "m"
        self.manifest = {"git": {"commit": commit, "dirty": False}}
        self.records = [{"id": "numpy_gemm/n=1", "status": "ok", "stats": {"p50": p50}, "reused_from": None,
                         "fingerprint": fingerprint, "run_id": run_id}]


def _changed(a, b, _family=None):   # runfacts.code_changed as it answers when every change of commit changed the code
    return a.manifest["git"]["commit"] != b.manifest["git"]["commit"]


def test_a_jump_whose_record_claims_another_fingerprint_over_the_same_code_is_flagged():
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 0.1, "b" * 64)]
    assert history.flagged(runs, _changed) == {("r2", "numpy_gemm/n=1")}
    assert [j[2] for j in history.jumps(runs, code_changed=_changed)] == ["r2"]
    assert _expect("jump_fingerprint_claim") in history.jumps_text(runs, _changed)


def test_a_jump_over_changed_code_is_listed_not_flagged():
    runs = [_Run("r1", 1.0, "a" * 64), _Run("r2", 0.1, "b" * 64, commit="b" * 40)]   # git shows the code changed
    assert history.flagged(runs, _changed) == set()
    assert [j[2] for j in history.jumps(runs, changed=True, code_changed=_changed)] == ["r2"]


def test_a_staircase_of_alternating_fingerprints_is_flagged_where_it_crosses():
    runs = [_Run(f"r{i}", 0.6 ** i, "ab"[i % 2] * 64) for i in range(5)]   # 1.0, 0.6, 0.36, 0.216, 0.13
    found = history.flagged(runs, _changed)
    assert found and min(run for run, _id in found) == "r2", found   # 0.36 against the baseline 1.0


def test_a_steady_series_is_not_flagged():
    runs = [_Run(f"r{i}", 1.0 + 0.1 * (i % 2), "ab"[i % 2] * 64) for i in range(6)]
    assert history.flagged(runs, _changed) == set()


def test_code_changed_reads_the_repository(tmp_path):
    """runfacts.code_changed: only git showing a change under CODE_PATHS between two commits is a change
    of code; one commit (dirty or not), a docs-only change or another environment are not (round 36: a
    dirty claim, or one edited environment field, with another fingerprint hid a 10x jump)."""
    import subprocess
    from types import SimpleNamespace
    from reportgen.data import runfacts
    from helpers import ENV

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, text=True).stdout.strip()

    def commit(message):
        git("add", "-A")
        git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", message)
        return git("rev-parse", "HEAD")
    git("init", "-q")
    first = commit("one")
    (tmp_path / "README").write_text("docs only\n")
    second = commit("docs")
    (tmp_path / "study").mkdir()
    (tmp_path / "study" / "x.py").write_text("x = 1\n")
    third = commit("code")

    def run(sha, dirty=False, **env):
        return SimpleNamespace(manifest={"git": {"commit": sha, "dirty": dirty}, "profile": "standard",
                                         "environment": dict(ENV, **env)})
    changed = runfacts.code_changed(tmp_path)
    assert changed(run(second), run(third)) and changed(run(third), run(first))
    assert not changed(run(first), run(first)) and not changed(run(first), run(second))
    assert changed(run(second), run(third, dirty=True)) and not changed(run(first), run(first, dirty=True))
    assert not changed(run(first), run(first, kernel="other"))


def test_the_goals_tables_share_of_the_peak_is_flagged_above_one():
    from test_writeup import ENV, _cur, _records, _spread
    from reportgen.pages import gemm
    from reportgen.render.figures import FigureBook

    def goals(peak_p50):   # the tuned kernel: 2 * 1024**3 flops in 0.0236 s, about 91 GFLOPS
        key = "machine_peak/dtype=float32/isa=avx2/threads=2"
        peak = _cur(key, _spread(peak_p50), {"dtype": "float32", "isa": "avx2", "threads": 2, "iters": 2 ** 24},
                    {"flops_per_call": 4 * 1024 ** 3, "accumulators": 8})   # two threads' work
        book = FigureBook()
        book.set_page("gemm.md")
        return gemm.gemm_goals(book, dict(_records(), **{key: peak}), dict(ENV, logical_cores=2))
    flag = FigureBook().above_peak(2.0)
    assert flag and flag in goals(0.086) and flag not in goals(0.012)   # a peak of 50, then of 358 GFLOPS
