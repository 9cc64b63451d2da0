"""The eighty-seventh round of the hostile corpus (issue #29): attack only, then fixed.

Site set, 10 probes, 6 failed (two weak): a lone '\\r' in a docs/snippets file (or a YAML "\\r" in an archive
snippet or checklist text) ended its code block or table row, and what followed was published as live Markdown (a
heading, a typed figure, an outside link); the checklist row wrote archive words as Markdown; a snippet's 'today' of
'' stopped migration.md blamed on the page; a lone surrogate in a mkdocs.yml title stopped MkDocs naming an offset;
a --site-dir named like a build's lock (.X.lock) stopped every build of X; C0 controls in a snippet file were named
only on the rendered page.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import types

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("yaml_line_breaks_refused", "title_no_control_or_unassigned", "snippet_file_plain_code",
                                   "code_today_a_page_link", "checklist_row_text", "site_dir_not_a_lock")}


@pytest.mark.parametrize("text", ['a: "x\\ry"', 'a: "x\\u2028y"', 'a: ["\\x85"]', '"k\\r": 1', 'a: "\\ud800"'])
def test_a_yaml_value_breaks_lines_with_lf_only(text):
    from reportgen.data import safeyaml
    for read in (safeyaml.loads, safeyaml.compose):   # compose: how the build walks mkdocs.yml
        with pytest.raises(safeyaml.Refused) as refused:
            read(text)
        assert str(refused.value).startswith("line 1: ") and (_expect("yaml_line_breaks_refused") in str(refused.value)
                                                             or "surrogate" in str(refused.value))
    assert safeyaml.loads('a: "x\\ny"') == {"a": "x\ny"}


@pytest.mark.parametrize("title", ["\u53c2\u8003\ud800", "\u53c2\u8003\r\u8d44\u6599", "GEMM \u57fa\u7ebf\u200b",
                                   "GEMM\ue000", "GEMM\u1cff"])
def test_a_title_holds_no_control_or_unassigned_character(title):
    from reportgen.publish import configcheck
    assert _expect("title_no_control_or_unassigned") in configcheck.title_problem(title)


@pytest.mark.parametrize("body", ["x = 1\r\r## h\r", "x = 1\r\n", "x = 1\x08\n", "x = 1\u2028\n"])
def test_a_snippet_file_is_plain_code_named_by_its_file(body, tmp_path):
    from reportgen.data import seed
    from reportgen.errors import ReportError
    (tmp_path / "docs" / "snippets").mkdir(parents=True)
    (tmp_path / "docs" / "snippets" / "x.py").write_bytes(("# \u5f53\u524d\n" + body).encode())
    with pytest.raises(ReportError) as refused:
        seed.snippet_file(tmp_path, "docs/snippets/x.py")
    said = str(refused.value)
    assert said.startswith("docs/snippets/x.py:") and any(w in said for w in (_expect("snippet_file_plain_code"), "invisible"))


@pytest.mark.parametrize("today", ["", "#inspect", 'method.md#x" title="y', "../../etc/passwd"])
def test_a_code_snippets_today_is_a_page_link(today, tmp_path):
    import shutil
    from conftest import ROOT
    from reportgen.data import safeyaml, seed
    from reportgen.errors import ReportError
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    path = tmp_path / "archive" / "code.yaml"
    data = safeyaml.loads(path.read_text(encoding="utf-8"))
    data["snippets"][0]["today"] = today
    import yaml
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_code(tmp_path / "archive")
    assert "snippets[0].today" in str(refused.value) and _expect("code_today_a_page_link") in str(refused.value)


def test_a_checklist_rows_archive_words_are_text():
    import markdown
    from reportgen.publish import coveragepage
    item = {"id": "x", "article": "*a* [x](https://evil.example/)", "content": "*\u5b89\u88c5* [d](https://evil.example/x) <b>b</b> | c",
            "seed_sections": ["1 **2**"], "page": "method.md", "anchor": "install"}
    result = types.SimpleNamespace(item=item, covered=True, reasons=[])
    text = coveragepage.coverage_markdown([result], {}, [], {})
    html = markdown.markdown(text, extensions=["tables"])
    assert "evil.example" not in html.replace("https://evil.example/", "") or "<a href=\"https://evil" not in html
    assert "<em>" not in html and "<strong>" not in html and "<b>" not in html and "<a " not in html, html
    assert _expect("checklist_row_text") in html   # the words shown as written


@pytest.mark.parametrize("page,anchor", [("method.md", "a b"), ("../x.md", "a"), ("method.md#x", "a"), ("m", "a")])
def test_a_checklist_items_page_and_anchor_are_a_link(page, anchor, tmp_path):
    import shutil
    import yaml
    from conftest import ROOT
    from reportgen.data import safeyaml, seed
    from reportgen.errors import ReportError
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    path = tmp_path / "archive" / "coverage.yaml"
    data = safeyaml.loads(path.read_text(encoding="utf-8"))
    data["items"][0].update(page=page, anchor=anchor)
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_items(tmp_path / "archive")
    assert "items[0].page/anchor" in str(refused.value)


def test_a_site_dir_is_not_named_as_a_lock(tmp_path):
    from conftest import copy_project
    from reportgen.commands import build
    from reportgen.errors import ReportError
    project = copy_project(tmp_path / "project")
    with pytest.raises(ReportError) as refused:
        build.check_site_dir(project, tmp_path / ".out.lock")
    assert _expect("site_dir_not_a_lock") in str(refused.value)
