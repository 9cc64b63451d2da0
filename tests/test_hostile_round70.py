"""The seventieth round of the hostile corpus (issue #29): attack only, then fixed.

Round 69's weak data findings first: a ratio of two records of one run (the INT8 speed-up, a ratio to ORT), each
record moved under the jump factor in opposite directions over changed code, moved past it unflagged; a line in
a summary's words naming no record ('[int8] p50 0.0500 ms over 200 samples') inside a record's cited lines stood in
its excerpt.

Site set (3 of 11 failed, one weak, and one weak pass): a front matter nested by 40 000 '- ' on one line (no
bracket) crashed MkDocs' C loader; Latin lookalike letters (a small-capital I, a dental click) made two nav titles
that read the same; the build's own nav section title and footer skipped the title rules; the HTML nesting bound
missed a bare markdown attribute and read '</div' inside an attribute's value as a closer.

Data set (4 of 10 failed, one weak), every forgery over changed code: a ratio across two families (a hand-ladder
share of the peak) was not followed; a record with "case": {} broke the INT8 page with an internal error; the e2e
rules page's per-convolution shares of the peak were plain text no flag reached; a median in other words or letters
inside a record's cited lines passed.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

from reportgen.data import merge
from reportgen.pages import history, pairs

MUTATIONS = {}
SPECIAL = {case: None for case in ("ratio_of_two_records", "stray_median_cited", "front_matter_block_depth",
                                   "latin_lookalike_letters", "build_words_titles", "html_nesting_parsed",
                                   "ratio_across_families", "case_fields_held", "conv_share_flagged",
                                   "stray_median_variants")}

FP32, INT8 = "int8/model=m/engine=tvm_fp32", "int8/model=m/engine=tvm_int8"


class _Run:
    def __init__(self, run_id, fp32, int8, commit, ids=(FP32, INT8)):
        self.run_id, self.machine = run_id, "m"
        self.manifest = {"git": {"commit": commit, "dirty": False}, "profile": "standard", "environment": {}}
        self.records = [{"id": cid, "case": None, "experiment": cid.split("/")[0], "status": "ok",
                         "stats": {"p50": p50}, "reused_from": None, "fingerprint": commit[:1] * 64, "run_id": run_id}
                        for cid, p50 in zip(ids, (fp32, int8))]


def _changed(a, b, _family=None):
    return a.manifest["git"]["commit"] != b.manifest["git"]["commit"]


def _flagged(runs, confirming=frozenset()):
    current = {"m": merge.current_records(runs)}
    return pairs.flagged_pairs(runs, current, set(), _changed, confirming, history.JUMP)


def test_a_ratio_of_two_records_each_under_the_factor_is_flagged():
    steady = [_Run(f"2026010{i + 1}T000000Z-standard-m", 1.0, 0.285, "a" * 40) for i in range(3)]
    # over changed code: FP32 x1.8, INT8 x1/1.8 (each under 2x), the speed-up 3.51x -> 11.4x
    forged = _Run("20260104T000000Z-standard-m", 1.8, 0.285 / 1.8, "b" * 40)
    assert not history.all_jumps(steady + [forged], _changed)   # neither record moved by the factor
    found = _flagged(steady + [forged])
    assert len(found) == 1 and not found[0].same_code and found[0].level_run == "20260101T000000Z-standard-m"
    assert {found[0].a[1], found[0].b[1]} == {FP32, INT8}
    # a copy of the forged run does not confirm it; a run a maintainer accepted does
    copy = _Run("20260105T000000Z-standard-m", 1.8, 0.285 / 1.8, "b" * 40)
    assert len(_flagged(steady + [forged, copy])) == 1
    assert not _flagged(steady + [forged, copy], confirming={"20260105T000000Z-standard-m"})
    # at the same code it is a jump of the same code
    same = _flagged(steady + [_Run("20260104T000000Z-standard-m", 1.8, 0.285 / 1.8, "a" * 40)])
    assert len(same) == 1 and same[0].same_code
    assert not _flagged(steady + [_Run("20260104T000000Z-standard-m", 1.3, 0.285 / 1.3, "b" * 40)])   # 1.69x: under the factor
    assert _expect("ratio_of_two_records") in pairs.__doc__
    assert "A ÷ B" in history.pairs_text(found)


def test_a_median_in_a_summarys_words_inside_the_cited_lines_is_refused():
    from types import SimpleNamespace

    from reportgen.data import runfacts
    from study import citation
    from test_hostile_round56_data import _cur
    rec = _cur("e2e", "ort", "20261206T000000Z-standard-x", 0.01).record
    rec.update(reused_from=None, samples=[0.01] * 5, log=dict(rec["log"], lines=[1, 3]))
    own = f"[e2e] {citation.summary(rec['id'], 'ok', rec['samples'], 0.01)}"
    run = SimpleNamespace(run_id=rec["run_id"], records=[rec], where=lambda i: f"x/records.jsonl:{i + 1}")
    for stray in ("[e2e] p50 0.0500 ms over 200 samples", "[e2e] ort: p50 0.05 ms over 200 samples",
                  "note p50\u200b 0.05 ms over 9 samples"):
        said = runfacts.unnamed_problems(run, lambda _rec, stray=stray: ["[e2e] timing", stray, own])
        assert said and "line 2 of" in said[0] and _expect("stray_median_cited") in said[0], stray
    assert runfacts.unnamed_problems(run, lambda _rec: ["[e2e] timing", "[e2e] p50 is the median", own]) == []


def test_a_front_matter_nested_without_brackets_is_refused_before_mkdocs_reads_it(tmp_path):
    from reportgen.data import plainfile
    (tmp_path / "a.md").write_text("---\nhide:\n" + "- " * 40000 + "toc\n---\n# x\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("---\nhide:\n" + "? " * 300 + "toc\n---\n# x\n", encoding="utf-8")
    said = plainfile.front_matter_depth_problems(tmp_path)
    assert len(said) == 2 and said[0].startswith(str(tmp_path / "a.md")) and "at line 3" in said[0]
    assert all(_expect("front_matter_block_depth") in line for line in said)
    assert plainfile.front_matter_depth_problems(ROOT / "docs") == []


def test_latin_lookalike_letters_are_refused_and_dashes_fold():
    from reportgen.publish import configcheck
    from study import confusables, schema
    for title in ("\ua7aeNT8 \u91cf\u5316", "\u01c0NT8", "\u0131NT8", "\u026aNT8"):
        assert _expect("latin_lookalike_letters") in configcheck.title_problem(title), title
        assert schema.foreign_letter(title)
    for plain in ("Caf\u00e9 na\u00efve", "Bj\u00f8rn Stra\u00dfe", "INT8 \u91cf\u5316", "Intel(R) Xeon(R) 8480+"):
        assert configcheck.title_problem(plain) is None, plain
    assert confusables.repeated(["INT8\u2010\u91cf\u5316", "int8-\u91cf\u5316"]) == "int8-\u91cf\u5316"


def test_the_builds_own_titles_meet_the_title_rules(monkeypatch):
    from reportgen.publish import plugin
    from test_hostile_round57 import _on_config
    real = plugin.W
    for key, text in (("plugin.on_config.nav_provenance", "\u3000\u3000"),
                      ("plugin.footer.text", "\u0489" * 200 + "{commit}{date}{machine}"),
                      ("plugin.on_config.nav_provenance", "\ua7aeNT8")):
        monkeypatch.setattr(plugin, "W", lambda k, _key=key, _text=text, **kw: _text.format(**kw) if k == _key else real(k, **kw))
        said = _on_config()
        assert _expect("build_words_titles") in said and "docs/words/plugin.yaml" in said, said
    monkeypatch.setattr(plugin, "W", lambda k, **kw: "\u5386\u53f2" if k == "plugin.on_config.nav_provenance"
                        else real(k, **kw))
    said = _on_config(nav=[{"\u5386\u53f2": "history.md"}])
    assert "is the same as another title" in said and "docs/words/plugin.yaml" in said, said


@pytest.mark.parametrize("opened", ["<center markdown>", '<div markdown="1" title="</div>">', "<tr markdown>"])
def test_the_html_nesting_bound_reads_tags_as_a_browser_does(opened):
    from reportgen.publish import nesting
    text = "# t\n\n" + (opened + "\n\n") * 450 + "x\n" + "</center>\n" * 450
    said = nesting.nesting_problem("docs/a.md", text)
    assert said and said.startswith("docs/a.md:67:") and _expect("html_nesting_parsed") in said
    assert nesting.nesting_problem("docs/a.md", "# t\n\n" + "<div markdown>a</div>\n" * 400) is None


def test_a_ratio_across_families_is_followed_where_pages_print_one():
    ids = ("gemm_hand/impl=x/n=64", "machine_peak/isa=avx2/threads=1")
    steady = [_Run(f"2026010{i + 1}T000000Z-standard-m", 1.0, 1.0, "a" * 40, ids) for i in range(3)]
    forged = _Run("20260104T000000Z-standard-m", 1 / 1.6, 1.6, "b" * 40, ids)
    found = _flagged(steady + [forged])
    assert len(found) == 1 and {found[0].a[1], found[0].b[1]} == set(ids)
    assert _expect("ratio_across_families") in open(pairs.__file__, encoding="utf-8").read()
    other = ("gemm_hand/impl=x/n=64", "numpy_gemm/dtype=float32/n=32")   # no page divides these
    assert not _flagged(steady[:1] + [_Run("20260104T000000Z-standard-m", 1 / 1.6, 1.6, "b" * 40, other)])
    assert pairs.followed("gemm_tvm", "machine_peak") and not pairs.followed("gemm_hand", "int8")


def test_a_page_printing_a_ratio_no_rule_follows_is_caught():
    from types import SimpleNamespace

    from reportgen.render.figures import FigureBook

    def cur(rid, family):
        rec = {"id": f"{family}/n=1", "run_id": rid, "experiment": family,
               "log": {"path": f"runs/{rid}/logs/x.log", "lines": [1, 2], "sha256": "0" * 64}}
        return SimpleNamespace(record=rec, machine="m", jumped=False, ok=True)
    book = FigureBook()
    book.followed = pairs.followed
    book.set_page("index.md")
    book.current("gemm_hand/n=1#share", "50%", "%", cur("r", "gemm_hand"), also=(cur("r", "machine_peak"),))
    assert not book.unfollowed
    book.current("int8/n=1#vs", "2x", "x", cur("r", "int8"), also=(cur("r", "e2e"),))
    assert book.unfollowed == {("int8", "e2e"), ("e2e", "int8")}


def test_a_record_names_each_field_of_its_id_in_its_case():
    from study import cases
    said = cases.case_problems("int8/model=resnet18_v1/size=224/engine=tvm_int8/batch=1/threads=2", {}, "ok")
    assert said and said[0].startswith("case.model: missing") and _expect("case_fields_held") in said[0]
    whole = {"model": "resnet18_v1", "input_size": 224, "engine": "tvm_int8", "batch": 1, "threads": 2}
    assert cases.case_problems("int8/model=resnet18_v1/size=224/engine=tvm_int8/batch=1/threads=2", whole, "ok") == []
    tiles = {"impl": "tvm_grid", "stage": "microkernel", "m": 8, "n": 8, "k": 8, "threads": 1,
             "tiles": {"mr": 8, "nr": 32, "kc": 256}}
    assert cases.case_problems("gemm_tvm/impl=tvm_grid/stage=microkernel/m=8/n=8/k=8/threads=1/mr=8/nr=32/kc=256",
                               tiles, "ok") == []


def test_the_per_convolution_share_of_the_peak_carries_the_peaks_flag():
    import inspect

    from reportgen.pages import e2e_rules
    source = inspect.getsource(e2e_rules.conv_table)
    assert _expect("conv_share_flagged") in source
    assert 'also=(peak,)' in source and 'also=(ort,)' in source


def test_a_median_in_other_words_or_letters_inside_the_cited_lines_is_refused():
    from study import citation
    for stray in ("P50  0.05 us (200 samples)", "p50 = 0.05 ms over 9 samples", "[int8] \u044050 0.05 ms over 200 samples",
                  "\u4e2d\u4f4d\u6570 0.05 ms\uff0c200 \u4e2a\u6837\u672c", "[int8] t\u03bfp kernel"):
        assert citation.stray_median(["[int8] timing", stray]) == 1, stray
    for real in ("[e2e] (context) paired_with=ort blocks=20 tvm_p50_ms=1.2 peer_p50_ms=1.3 ratio=0.9",
                 "2026-12-07 02:53:42 [INFO] [task_scheduler.cc:193] Sending 32 sample(s) to builder",
                 "[e2e] rules tuned network 3 ms vs default 4 ms (median of 20 alternating calls)"):
        assert citation.stray_median([real]) is None, real
    from reportgen.data import runfacts
    assert _expect("stray_median_variants") in open(runfacts.__file__, encoding="utf-8").read()
