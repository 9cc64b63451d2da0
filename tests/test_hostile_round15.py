"""The fifteenth round of the hostile corpus (issue #29), a verification round: a log line of ```
that opened a fence inside a "verbatim" excerpt; bidi and invisible characters the invisible set
missed (U+061C, the tag characters) and a bidi override in today's code of the content map; a
record's artifact reference with '..' that the next retest followed outside the project; a committed
link or FIFO as the retest profile; site files of XML's kin, XSLT and javascript: URLs that verify
never read; a second key in mkdocs.yml, SOURCE_DATE_EPOCH that is no number, a committed site that
the build restored and serve published; a cut database line and a deep hash memory.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import json
import os
import shutil
import signal
import subprocess

import helpers
import markdown
import pytest
import yaml
from conftest import ROOT
from test_hostile_round4 import _expect, _one_line

from reportgen.commands import build, retest, serve
from reportgen.data import load, plainfile, seed
from reportgen.errors import ReportError
from reportgen.publish import sitecheck
from reportgen.render import cells, provenance

MUTATIONS = {}
RUN = "20260101T000000Z-quick-f6ab9f827cfd"
EXTENSIONS = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["markdown_extensions"]


def _page(text):
    names = [e if isinstance(e, str) else next(iter(e)) for e in EXTENSIONS]
    return markdown.markdown(text, extensions=names)


def test_a_fence_line_in_a_log_excerpt_stays_verbatim(tmp_path):
    """superfences reads the page before raw HTML is set aside: ``` in a cited log line opened a
    fence inside the excerpt (lines highlighted, '<' double-escaped, an {#id} put on the page)."""
    rec = helpers.record(RUN)
    rec["log"]["lines"] = [1, 5]
    log = ("numpy_gemm n=32 1.1 ms\n```{.x #numpy_gemm-dtypefloat32 data-z=1}\nRESULT <b> FAILED\n```\n"
           "~~~\nend\n")
    helpers.write_run(tmp_path, RUN, [rec], log_text=log)
    html = _page("## head\n\n" + provenance._fence(provenance.log_excerpt(tmp_path, rec)) + "\n\nafter")
    assert 'class="highlight"' not in html and "numpy_gemm-dtypefloat32" not in html.split("<code>")[0], \
        _expect("log_excerpt_fence")
    assert "&amp;lt;" not in html and "&lt;b&gt;" in html and html.count("<pre") == 1


@pytest.mark.parametrize("char", ["\u061c", "\U000e0041", "\u3164", "\u180e"])
def test_the_arabic_letter_mark_tag_characters_and_fillers_are_invisible(char):
    """U+061C is a bidi control; the tag characters and the Hangul and Mongolian fillers show nothing:
    words, docs pages, environment strings and the escapers let them through raw."""
    problem = plainfile.hidden_text_problem("docs/words/x.yaml", f"speed{char}up")
    assert problem and f"U+{ord(char):04X}" in problem
    assert char not in cells.text(f"a{char}b") and char not in cells.visible(f"a{char}b")
    assert _expect("hidden_alm_tag_chars") in plainfile.hidden_text_problem("w", "a\u061cb")


def test_todays_code_of_the_content_map_holding_a_bidi_override_is_refused(tmp_path):
    """writeup.current_code read docs/snippets/*.py with read_text and showed it raw on the page."""
    (tmp_path / "docs" / "snippets").mkdir(parents=True)
    (tmp_path / "docs" / "snippets" / "x.py").write_text('# Today: x\naccess = "user\u202e \u2066# admin\u2069"\n',
                                                         encoding="utf-8")
    with pytest.raises(ReportError) as err:
        seed.snippet_file(tmp_path, "docs/snippets/x.py")
    assert _expect("snippet_bidi") in _one_line(err.value) and "docs/snippets/x.py:2" in str(err.value)
    from reportgen.pages import writeup
    with pytest.raises(ReportError):
        writeup.current_code(tmp_path, "docs/snippets/x.py", None)


def test_an_artifact_reference_outside_a_runs_artifacts_is_never_followed(tmp_path):
    """load checks no record's extra.artifacts: the next retest's e2e_models compiled with, and int8
    copied into its new run, whatever folder '..' named."""
    from experiments import harness
    h = harness.Harness.__new__(harness.Harness)
    h.run_id, h.results_root = "20261201T000000Z-standard-f6ab9f827cfd", tmp_path / "results"
    h.artifacts_dir = tmp_path / "results" / "runs" / ".tmp-x" / "artifacts" / "e2e_models"
    for ref in (f"runs/{RUN}/artifacts/../../../../../etc", f"runs/{RUN}/artifacts/e2e_tune/../../../x"):
        with pytest.raises(ValueError) as err:
            h.artifact_path(ref)
        assert _expect("artifact_ref_outside") in str(err.value)
    (tmp_path / "outside").mkdir()
    (tmp_path / "results" / "runs" / RUN / "artifacts").mkdir(parents=True)
    os.symlink(tmp_path / "outside", tmp_path / "results" / "runs" / RUN / "artifacts" / "db")
    with pytest.raises(ValueError, match="is a symlink"):
        h.artifact_path(f"runs/{RUN}/artifacts/db")
    assert h.artifact_path(f"runs/{RUN}/artifacts/e2e_tune/db") == h.results_root / "runs" / RUN / "artifacts/e2e_tune/db"


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_planted_profile_file_is_refused_unread(kind, tmp_path):
    """A committed link there was read (its profile: value echoed in the error); a FIFO hung the retest."""
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments", ignore=shutil.ignore_patterns("__pycache__"))
    cfg = tmp_path / "experiments" / "configs" / "quick.yaml"
    cfg.unlink()
    if kind == "link":
        (tmp_path / "outside.yaml").write_text("profile: secret-token-123\nfamilies: {}\n")
        os.symlink(tmp_path / "outside.yaml", cfg)
    else:
        os.mkfifo(cfg)
    def hung(*_args):
        raise AssertionError("read_profile waited on the FIFO")
    signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        with pytest.raises(ReportError) as err:
            retest.read_profile(tmp_path, "quick")
    finally:
        signal.alarm(0)
    assert _expect("profile_file_planted") in _one_line(err.value) and "secret-token" not in str(err.value)


ACTIVE = '<x xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script></x>'


def _marked_site(folder):
    folder.mkdir(parents=True)
    (folder / build.MARKER).write_text("m")
    return folder


def test_site_files_of_xmls_kin_are_read_for_scripts(tmp_path):
    """A static host serves .xsd and .rng as application/xml, .kml, .xspf, .mathml and .owl as +xml:
    documents a browser runs an XHTML-namespace script in, which the list of active types missed."""
    site = _marked_site(tmp_path / "site")
    names = ["a.xsd", "a.rng", "a.kml", "a.xspf", "a.mathml", "a.owl", "a.smil", "a.unknown"]
    for name in names:
        (site / name).write_text(ACTIVE)
    (site / "ok.js").write_text("var x = '<script>'")   # inert types are not documents
    problems = sitecheck.other_markup_problems(site, lambda rel: False)
    assert all(any(name in p and _expect("site_document_kin") in p for p in problems) for name in names)
    assert not any("ok.js" in p for p in problems)


def test_javascript_urls_xslt_scripts_and_stylesheet_instructions_are_refused(tmp_path):
    site = _marked_site(tmp_path / "site")
    (site / "a.svg").write_text('<svg xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href=" java\tscript:alert(1)">'
                                '<text>x</text></a><a><animate attributeName="href" values="#;javascript:alert(2)"/></a></svg>')
    (site / "b.xml").write_text('<?xml-stylesheet type="text/xsl" href="c.xsl"?><r/>')
    (site / "c.xsl").write_text('<xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/">'
                                '<xsl:element name="script">alert(1)</xsl:element></xsl:template></xsl:stylesheet>')
    problems = sitecheck.other_markup_problems(site, lambda rel: False)
    assert sum(_expect("site_script_url_xslt") in p for p in problems) == 2
    assert any("b.xml" in p and "xml-stylesheet" in p for p in problems)
    assert any("c.xsl" in p and "xsl:element" in p for p in problems)


def test_a_key_twice_in_mkdocs_yml_or_a_source_date_epoch_of_text_is_refused(tmp_path, monkeypatch):
    """A second plugins: key replaced the first (no reportgen plugin: pages unchecked, then an internal
    KeyError); SOURCE_DATE_EPOCH=tomorrow ended in MkDocs' internal ValueError."""
    build._config_problems(ROOT)   # the committed mkdocs.yml holds no key twice
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    with open(tmp_path / "mkdocs.yml", "a", encoding="utf-8") as fh:
        fh.write("\nplugins:\n  - search\n")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert _expect("mkdocs_yml_key_twice") in _one_line(err.value) and "'plugins'" in str(err.value)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "tomorrow")
    with pytest.raises(ReportError) as err:
        build._config_problems(ROOT)
    assert _expect("source_date_epoch_text") in _one_line(err.value)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764547200")
    build._config_problems(ROOT)


def test_a_committed_site_is_neither_restored_nor_served(tmp_path):
    """git add -f site.old/: the next build put it back as the published site; serve published a
    committed site/ that no build had checked."""
    project = tmp_path / "project"
    (project / "results").mkdir(parents=True)
    for name in ("site.old", "other"):
        _marked_site(project / name)
        (project / name / "index.html").write_text('<script src="x.js"></script>')
    git = ["git", "-C", str(project), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-f", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "planted"], check=True)
    with pytest.raises(ReportError) as err:
        build.check_site_dir(project, project / "site")
    assert _expect("site_committed_files") in _one_line(err.value) and "site.old" in str(err.value)
    with pytest.raises(ReportError) as err:
        serve.open_server(project / "other", 0)
    assert _expect("site_committed_files") in str(err.value)
    assert (project / "site.old" / "index.html").exists() and not (project / "site").exists()


def test_a_cut_database_line_names_its_file_and_line(tmp_path):
    from experiments.e2e import tuning
    campaign = next(p for p in sorted((ROOT / "results" / "campaigns").iterdir()) if not p.name.startswith("."))
    data = (campaign / "database_tuning_record.json").read_bytes()
    (tmp_path / "database_tuning_record.json").write_bytes(data[:len(data) - 300])
    with pytest.raises(ValueError) as err:
        tuning.prune(tmp_path, 4)
    assert _expect("tuning_database_cut_line") in str(err.value)
    assert f"{tmp_path / 'database_tuning_record.json'}:" in str(err.value)


def test_a_hash_memory_nested_too_deep_is_only_unused(tmp_path):
    helpers.write_run(tmp_path, RUN, [helpers.record(RUN)])
    memory = load._hash_memory(tmp_path / "runs" / RUN)
    load.make_private(memory.parent)
    memory.write_text("[" * 100000)
    assert len(load.read_run(tmp_path, tmp_path / "runs" / RUN).records) == 1, _expect("hash_memory_deep")
    assert json.loads(memory.read_text())   # rewritten whole by the read


def test_a_docs_page_front_matter_with_a_key_twice_is_refused(tmp_path):
    """MkDocs reads a page's front matter with a loader that keeps the second of two keys: the title
    (or template) a review saw first was not the one published; nothing checked front matter text."""
    from types import SimpleNamespace

    from reportgen.publish.plugin import ReportgenPlugin
    plugin = SimpleNamespace(book=SimpleNamespace(set_page=lambda uri: None), generated=set())
    for source, expect in (("---\ntitle: A\ntitle: B\n---\nbody\n", _expect("docs_front_matter_key_twice")),
                           ("---\ntitle: A\u202e\n---\nbody\n", "U+202E")):
        (tmp_path / "p.md").write_text(source, encoding="utf-8")
        page = SimpleNamespace(file=SimpleNamespace(src_uri="p.md", abs_src_path=str(tmp_path / "p.md")))
        with pytest.raises(ReportError) as err:
            ReportgenPlugin.on_page_markdown(plugin, "body\n", page, None, None)
        assert expect in _one_line(err.value) and "docs/p.md" in str(err.value)
    (tmp_path / "p.md").write_text("---\ntitle: A\n---\nbody\n", encoding="utf-8")
    assert plainfile.front_matter_problem("docs/p.md", tmp_path / "p.md") is None


SPECIAL = {case: None for case in (
    "log_excerpt_fence", "hidden_alm_tag_chars", "snippet_bidi", "artifact_ref_outside", "profile_file_planted",
    "site_document_kin", "site_script_url_xslt", "mkdocs_yml_key_twice", "source_date_epoch_text",
    "site_committed_files", "tuning_database_cut_line", "hash_memory_deep", "docs_front_matter_key_twice")}
