"""The fourteenth round of the hostile corpus (issue #29): a checkout whose committed `site` link
sends the build and `serve` outside the project; a library planted under the name the build cache of
the machine peak computes; a leftover site.old whose removal, stopped half-way, took its marker
first; records and campaign databases the build accepts that the next retest could not read (U+2028,
a key twice); a run a check breaks on, met by retest's scan of earlier runs; docs/ files of document
types verify never read; zero-width and bidi characters in docs pages and words texts.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import gzip
import hashlib
import inspect
import json
import os
import shutil
import subprocess
from types import SimpleNamespace

import helpers
import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

from reportgen.commands import build, retest, serve
from reportgen.data import runfacts, words
from reportgen.errors import ReportError
from reportgen.publish import sitecheck

MUTATIONS = {}
RUN = "20260101T000000Z-quick-f6ab9f827cfd"


def _site(folder):
    folder.mkdir(parents=True)
    for name in [f"p{i:02}.html" for i in range(30)] + ["assets/x.js", "data/runs/r/run.json"]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("x")
    (folder / build.MARKER).write_text("m")   # written last: first in a tmpfs listing
    return folder


def test_a_committed_site_link_is_refused_by_build_and_serve(tmp_path):
    """.gitignore's `site/` matches folders only: a pull request could commit `site` as a link to
    another site of the user's (its marker made the build replace it) or to a home folder that
    `serve` then published."""
    project, other = tmp_path / "project", _site(tmp_path / "other-site")
    (project / "results").mkdir(parents=True)
    (other / "index.html").write_text("mine")
    os.symlink(other, project / "site")
    with pytest.raises(ReportError) as err:
        build.check_site_dir(project, project / "site")
    assert _expect("site_dir_committed_link") in str(err.value) and str(project / "site") in str(err.value)
    with pytest.raises(ReportError) as err:
        serve.open_server(project / "site", 0)
    assert _expect("site_dir_committed_link") in str(err.value)
    assert (other / build.MARKER).exists()


def test_the_peak_and_hand_kernels_never_load_a_library_from_the_checkout(tmp_path):
    """build_c loads a library already present under the name its cache computes: under .cache/build
    of the checkout a committed one (git add -f) ran as ours and set the machine peak."""
    from experiments import build_c, gemm_hand, peak
    for module in (peak, gemm_hand):
        assert ".cache/build" not in inspect.getsource(module.run), _expect("build_folder_planted_library")
    private = build_c.private_dir()
    assert not private.is_relative_to(ROOT) and private.stat().st_mode & 0o777 == 0o700
    assert private.stat().st_uid == os.getuid()


def test_a_leftover_site_removal_stopped_half_way_leaves_a_folder_the_next_build_removes(tmp_path, monkeypatch):
    """rmtree took the marker at its place in the listing; Ctrl-C after it left a folder every later
    build refused as 'not a site built by reportgen' until removed by hand."""
    project = tmp_path / "project"
    (project / "results").mkdir(parents=True)
    _site(project / "site")
    old = _site(project / "site.old")
    real, real_scandir, calls = os.unlink, os.scandir, []

    class MarkerFirst:   # the listing order that takes the marker first (as it was 10th of 15 in a site)
        def __init__(self, *args):
            with real_scandir(*args) as it:
                self.entries = sorted(it, key=lambda e: e.name != build.MARKER)

        def __enter__(self):
            return iter(self.entries)

        def __exit__(self, *exc):
            return False

        def __iter__(self):
            return iter(self.entries)

    def stopping(path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)
    monkeypatch.setattr(os, "scandir", MarkerFirst)
    monkeypatch.setattr(os, "unlink", stopping)
    with pytest.raises(KeyboardInterrupt):
        build._remove(old)
    monkeypatch.setattr(os, "unlink", real)
    monkeypatch.setattr(os, "scandir", real_scandir)
    assert build.check_site_dir(project, project / "site") == (project / "site").resolve(), \
        _expect("site_leftover_removal_stopped")
    build._remove(old)
    assert not old.exists()


def test_a_record_or_database_line_holding_u2028_is_read_by_the_next_retest(tmp_path):
    """load reads records at "\\n"; the families read them with splitlines, which also cuts at U+2028
    inside a JSON string: JSONDecodeError, naming no file, in the next retest."""
    from experiments import harness
    from experiments.e2e import tuning
    rec = helpers.record(RUN)
    rec["extra"]["blas_kernel"]["architecture"] = "Has\u2028well"
    helpers.write_run(tmp_path, RUN, [rec])
    records = tmp_path / "runs" / RUN / "records.jsonl"
    assert list(harness._read_previous(records)) == [rec["id"]], _expect("records_line_u2028")
    work = tmp_path / "work"
    work.mkdir()
    campaign = next(p for p in sorted((ROOT / "results" / "campaigns").iterdir()) if not p.name.startswith("."))
    line = (campaign / "database_tuning_record.json").read_text(encoding="utf-8").split("\n")[0]
    workload, record = json.loads(line)
    record[0] = _poke(record[0])   # a string of the trace holds U+2028, written raw
    (work / "database_tuning_record.json").write_text(json.dumps([workload, record], ensure_ascii=False) + "\n",
                                                      encoding="utf-8")
    assert "\u2028" in (work / "database_tuning_record.json").read_text(encoding="utf-8")
    assert tuning.prune(work, 4)["after"] == 1


def _poke(node):
    if isinstance(node, list):
        return [_poke(x) for x in node]
    if isinstance(node, dict):
        return {k: _poke(v) for k, v in node.items()}
    return node[:2] + "\u2028" + node[2:] if isinstance(node, str) and len(node) > 3 else node


def test_an_unreadable_campaign_json_names_its_file_in_the_tuning_job(tmp_path):
    from experiments.e2e import tuning
    src = next(p for p in sorted((ROOT / "results" / "campaigns").iterdir()) if not p.name.startswith("."))
    dest = tmp_path / "campaigns" / src.name
    shutil.copytree(src, dest)
    state = json.loads((dest / "campaign.json").read_text(encoding="utf-8"))
    (dest / "campaign.json").write_text(json.dumps(state)[:-1] + ', "cumulative_trials": 1}', encoding="utf-8")
    with pytest.raises(ValueError) as err:
        tuning.Campaign(tmp_path, state["parts"])
    assert str(err.value).startswith(str(dest / "campaign.json")) and _expect("campaign_json_unreadable") in str(err.value)


def test_retest_names_an_earlier_run_a_check_breaks_on(tmp_path, monkeypatch, capsys):
    """The build names such a run (errors.broken_check); retest's scan of earlier runs caught only
    ReportError, so the run stopped every retest with 'internal error'."""
    helpers.write_run(tmp_path, RUN, [helpers.record(RUN)])
    monkeypatch.setattr(runfacts, "count_problems", lambda *a: 1 / 0)
    assert retest._valid_runs(tmp_path / "runs") == []
    err = capsys.readouterr().err
    assert RUN in err and _expect("retest_scan_broken_check") in err


def test_docs_files_of_every_document_type_are_read_for_scripts(tmp_path):
    """verify read .html .htm .svg .xhtml .xml only: a docs/ file of another type a static host serves
    as a document (.xht, .shtml, .xsl, .mml, .rss) shipped its script to the site's origin."""
    site = tmp_path / "site"
    site.mkdir()
    script = b"<h:script xmlns:h='http://www.w3.org/1999/xhtml'>alert(1)</h:script>"
    for name in ("a.xht", "b.shtml", "c.xsl", "d.mml", "e.rss"):
        (site / name).write_bytes(b"<x>" + script + b"</x>")
    (site / "f.svgz").write_bytes(gzip.compress(b"<svg><script>alert(1)</script></svg>"))
    problems = sitecheck.other_markup_problems(site, lambda rel: False)
    for name in ("a.xht", "c.xsl", "d.mml", "e.rss"):
        assert [p for p in problems if p.startswith(str(site / name)) and _expect("docs_active_document_types") in p]
    # since round 25 an .shtml file is refused whole: a host may run its server-side includes
    assert [p for p in problems if p.startswith(str(site / "b.shtml")) and _expect("server_side_document") in p]
    assert [p for p in problems if p.startswith(str(site / "f.svgz"))]


@pytest.mark.parametrize("text", ['t: "price \u202e01 $\u202c"\n', 't: "price \\u202e01"\n', 't: "a\u200bb"\n'])
def test_a_words_text_holding_a_bidi_or_zero_width_character_is_refused(text, tmp_path, monkeypatch):
    path = tmp_path / "docs" / "words" / "zz.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(words, "ROOT", tmp_path)
    with pytest.raises(ReportError) as err:
        words._load(path, 0)
    message = str(err.value)
    assert message.startswith("docs/words/zz.yaml") and "\n" not in message
    assert "U+202E" in message or "U+200B" in message


def test_a_docs_page_holding_a_bidi_character_is_refused():
    from reportgen.publish import plugin
    me = SimpleNamespace(book=SimpleNamespace(set_page=lambda uri: None), generated=set())
    page = SimpleNamespace(file=SimpleNamespace(src_uri="gemm.md"))
    with pytest.raises(ReportError) as err:
        plugin.ReportgenPlugin.on_page_markdown(me, "# GEMM\n\nfixed \u202eexif\u202c here\n", page, None, None)
    assert str(err.value).startswith("docs/gemm.md:3:") and _expect("reviewed_text_bidi") in str(err.value)


@pytest.mark.parametrize("today", ["/dev/zero", "../../../etc/hostname", "docs/snippets/../../x.py", 5])
def test_a_content_map_today_outside_docs_snippets_is_refused(today, tmp_path):
    """The build read a code passage's `today` file with read_text: /dev/zero filled the memory
    (MemoryError, 'internal error'), ../../ read a file outside the project."""
    from reportgen.data import seed
    import yaml
    data = yaml.safe_load((ROOT / "archive" / "content_map.yaml").read_text(encoding="utf-8"))
    passage = next(p for p in data["passages"] if p.get("kind") == "code" and "today" in p)
    passage["today"] = today
    (tmp_path / "content_map.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        seed.read_content_map(tmp_path)
    assert [p for p in err.value.problems if p.startswith(str(tmp_path / "content_map.yaml"))
            and f"({passage['id']}).today" in p and _expect("content_map_today_outside") in p]


SPECIAL = {case: None for case in (
    "site_dir_committed_link", "build_folder_planted_library", "site_leftover_removal_stopped", "records_line_u2028",
    "campaign_json_unreadable", "retest_scan_broken_check", "docs_active_document_types", "reviewed_text_bidi",
    "content_map_today_outside")}
