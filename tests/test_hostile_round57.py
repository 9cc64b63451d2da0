"""The fifty-seventh round of the hostile corpus (issue #29): attack only, then fixed.

Data set (2 of 16 failed): a campaign's database was read as JSON lines only (its records repeated 4x
under 256 trials, a run_secs of 1e-300, garbage lines: all loaded, and the tuning retest seeds from
it); a run recorded before the citation rule was sealed by its id only, so it could be edited with its
run.json resealed (ORT 1.82x faster, published as current, its cited line still the old median).

Site set (6 of 11 failed): site_description (and extra's strings) went unescaped into every page's
head; an exclude_docs line of many '*' made MkDocs' matcher backtrack for hours; a character reference
of 5000 digits broke html.unescape (an internal error); a docs page print.md took the name of the PDF's
own page; serve bounded each read of a request head, not the head.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import inspect
import json
import shutil
from types import SimpleNamespace

import pytest

from conftest import ROOT
from test_hostile_round4 import _expect
from reportgen.errors import ReportError

MUTATIONS = {}
SPECIAL = {case: None for case in ("campaign_database_lines", "old_run_bytes_sealed", "head_markup_setting",
                                   "exclude_pattern_stars", "huge_character_reference", "reserved_page_name",
                                   "serve_trickled_head")}


def _campaign(tmp_path):
    results = tmp_path / "results"
    source = sorted((ROOT / "results" / "campaigns").iterdir())[0]
    shutil.copytree(source, results / "campaigns" / source.name)
    return results, results / "campaigns" / source.name


def test_a_campaign_database_is_its_campaign_s(tmp_path):
    from reportgen.data import load
    results, folder = _campaign(tmp_path)
    assert load.read_campaigns(results)   # as committed
    records = folder / "database_tuning_record.json"
    lines = records.read_text().splitlines()
    first = json.loads(lines[0])
    for forged, said in ((lines * 4, _expect("campaign_database_lines")), (lines[:3], _expect("campaign_database_lines")),
                         ([json.dumps([first[0], [first[1][0], [1e-300], first[1][2], first[1][3]]])] + lines[1:], "run_secs"),
                         (['{"hello": "world"}'] + lines[1:], "not a tuning record"),
                         ([json.dumps([first[0], [first[1][0], first[1][1], {"kind": "llvm"}, first[1][3]]])] + lines[1:],
                          "target")):
        records.write_text("\n".join(forged) + "\n")
        with pytest.raises(ReportError) as err:
            load.read_campaigns(results)
        assert any(str(records) in p and said in p for p in err.value.problems), err.value.problems
    records.write_text("\n".join(lines) + "\n")
    (folder / "database_workload.json").write_text('["1", 2]\n')
    with pytest.raises(ReportError) as err:
        load.read_campaigns(results)
    assert any("not a workload" in p for p in err.value.problems)


def test_a_run_recorded_before_the_rule_is_sealed_by_its_bytes(tmp_path):
    from reportgen.data import runfacts
    from study import citation
    old = sorted(p for p in (ROOT / "results" / "runs").iterdir() if not citation.bound(p.name))[-1]
    results = tmp_path / "results"
    shutil.copytree(old, results / "runs" / old.name)
    (tmp_path / "archive").mkdir()
    listed = runfacts.sealed_list(results)
    listed.write_text(f"{old.name} {runfacts.manifest_sha256(old)}\n")
    run = SimpleNamespace(run_id=old.name, path=results / "runs" / old.name)
    assert runfacts.sealed_problems(results, [run]) == []
    manifest = run.path / "run.json"
    manifest.write_bytes(manifest.read_bytes().replace(b'"profile"', b' "profile"', 1))   # resealed after an edit
    said = runfacts.sealed_problems(results, [run])
    assert said and said[0].startswith(str(manifest)) and _expect("old_run_bytes_sealed") in said[0]
    listed.write_text(f"{old.name}\n")   # an id alone seals nothing
    assert any("runs-before-named.txt:1:" in p for p in runfacts.sealed_problems(results, [run]))


def _on_config(**settings):
    from reportgen.publish import plugin
    me = plugin.ReportgenPlugin.__new__(plugin.ReportgenPlugin)
    me.config = SimpleNamespace(results_dir="results", archive_dir="archive", machine="")
    config = SimpleNamespace(config_file_path=str(ROOT / "mkdocs.yml"), docs_dir=str(ROOT / "docs"),
                             theme=SimpleNamespace(custom_dir=None), site_name="TVM", nav=None, extra={},
                             site_description="", site_author=None)
    for key, value in settings.items():
        setattr(config, key, value)
    with pytest.raises(ReportError) as err:
        plugin.ReportgenPlugin.on_config(me, config)
    return str(err.value)


def test_the_settings_the_theme_writes_are_plain_text():
    for settings in ({"site_description": 'x"><details><summary>y</summary><meta name="x'},
                     {"extra": {"alternate": [{"name": "<s>zh", "link": "/"}]}},
                     {"extra": {"social": [{"link": 'https://x.example/" onmouseover="alert(1)'}]}}):
        said = _on_config(**settings)
        assert _expect("head_markup_setting") in said, settings


def test_exclude_patterns_are_bounded(tmp_path):
    from reportgen.commands import build
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("exclude_docs: |\n  /words/\n",
                                                                      "exclude_docs: |\n  /words/\n  ************a\n")
    assert "************a" in text
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert "exclude_docs" in str(err.value) and _expect("exclude_pattern_stars") in str(err.value)


def test_a_huge_character_reference_is_named_and_read_as_a_browser_reads_it():
    import html
    from reportgen.data import plainfile
    from reportgen.publish import pagecontent, sitecheck
    huge = "&#" + "9" * 5000 + ";"
    said = plainfile.huge_reference_problem("docs/x.md", f"a\nb {huge}")
    assert said.startswith("docs/x.md:2:") and _expect("huge_character_reference") in said
    assert plainfile.huge_reference_problem("docs/x.md", "&#x000000008; &#0000000065;") is None
    assert html.unescape(plainfile.bounded_references(huge)) == "\ufffd"
    assert pagecontent.content_problem("x.md", f"<p>{huge}</p>") is None   # a ValueError before
    pagecontent.source_problem("docs/x.md", f"text {huge}")
    sitecheck.Markup().feed(f"<p>{huge}</p>")
    assert "huge_reference_problem" in inspect.getsource(__import__("reportgen.publish.plugin", fromlist=["x"]))


def test_a_docs_page_takes_no_name_the_pdf_writes():
    from reportgen.publish import pagecontent
    said = pagecontent.docs_file_problem("print.md")
    assert said.startswith("docs/print.md:") and _expect("reserved_page_name") in said
    assert pagecontent.docs_file_problem("prints.md") is None


def test_serve_bounds_the_whole_request_head(monkeypatch):
    import socket
    import threading
    import time
    from reportgen.commands import serve
    monkeypatch.setattr(serve, "HEAD_DEADLINE_S", 1.0)
    site = ROOT / "site"
    if not (site / "index.html").exists():
        pytest.skip("no built site")
    server = serve.open_server(site, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        conn = socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10)
        conn.sendall(b"GET /index.html HTTP/1.0\r\n")
        answer = b""
        for ch in b"Host: abcdefghijklmnopqrstuvwxyz\r\n\r\n":   # one byte every 0.2 s: 7 s in all
            try:
                conn.send(bytes([ch]))
            except OSError:
                break
            time.sleep(0.2)
        try:
            answer = conn.recv(64)
        except OSError:
            pass
        assert not answer.startswith(b"HTTP/1.0 200")   # the whole head would have been answered 200
    finally:
        server.shutdown()
    assert _expect("serve_trickled_head") in inspect.getsource(serve)
