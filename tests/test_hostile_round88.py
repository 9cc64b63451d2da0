"""The eighty-eighth round of the hostile corpus (issue #29): attack only, then fixed.

Site set, 9 probes, 4 failed (two weak): the coverage page quoted archive words raw in its reasons (a checklist
item's required term, a passage's facts: a live outside link, bold, a figure no check read); a YAML "\\x02" in an
archive snippet became part of a fence once Markdown dropped it, and the text left its code block; a snippet's
counterpart named 'nonexistent.md' was published as a dead link without a word.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import types

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("coverage_reasons_text", "yaml_controls_refused", "code_today_a_docs_page",
                                   "site_links_resolve")}

EVIL = "**123 \u500d** [x](https://evil.example/) <b>b</b> | c"


def test_the_coverage_pages_reasons_are_text():
    import markdown
    from reportgen.publish import coveragepage
    item = {"id": "x", "article": "intro", "content": "c", "seed_sections": ["1"], "page": "method.md", "anchor": "a"}
    text = coveragepage.coverage_markdown([types.SimpleNamespace(item=item, covered=False, reasons=[EVIL])], {}, [], {})
    passage = {"id": "p", "kind": "prose", "page": "method.md", "anchor": "a"}
    text += "\n" + "\n".join(coveragepage.content_markdown([types.SimpleNamespace(item=passage, covered=False, reasons=[EVIL])],
                                                           {}, {}))
    html = markdown.markdown(text, extensions=["tables"])
    assert "<strong>" not in html and "<b>" not in html and "<a " not in html, html
    assert html.count(_expect("coverage_reasons_text")) == 2


@pytest.mark.parametrize("text", ['a: "x\\x02y"', 'a: "\\x7f"', 'a: ["\\x1b[31m"]', 'a: "\\x9b"'])
def test_a_yaml_value_holds_no_control_character(text):
    from reportgen.data import safeyaml
    with pytest.raises(safeyaml.Refused) as refused:
        safeyaml.loads(text)
    assert _expect("yaml_controls_refused") in str(refused.value)
    assert safeyaml.loads('a: "tab\\there"') == {"a": "tab\there"}
    assert safeyaml.loads(text, controls=True)   # the hostile corpus's payloads


def test_a_code_snippets_today_is_a_page_of_docs(tmp_path):
    import shutil
    import yaml
    from conftest import ROOT
    from reportgen.data import safeyaml, seed
    from reportgen.errors import ReportError
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "method.md").write_text("# m\n", encoding="utf-8")
    path = tmp_path / "archive" / "code.yaml"
    data = safeyaml.loads(path.read_text(encoding="utf-8"))
    for snip in data["snippets"]:
        snip["today"] = "method.md#install"
    data["snippets"][0]["today"] = "nonexistent.md"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_code(tmp_path / "archive")
    assert "snippets[0].today" in str(refused.value) and _expect("code_today_a_docs_page") in str(refused.value)
    assert len(refused.value.problems) == 1


def test_every_link_of_the_site_resolves(tmp_path):
    from reportgen.publish import verify
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "a.html").write_text('<h1 id="top">a</h1><a href="sub/b.html#x">b</a><a href="#top">t</a>'
                                 '<a href="https://example.org/">e</a><a href="/sub/b.html">r</a>', encoding="utf-8")
    (site / "sub" / "b.html").write_text('<p id="x">b</p><a href="../nonexistent.html">d</a><a href="../a.html#nope">n</a>'
                                         '<a href="../../outside.html">o</a><a href="../study.pdf">p</a>', encoding="utf-8")
    pages = verify._parse_pages(site, [])
    assert verify._link_problems(site, "a.html", pages["a.html"], pages) == []
    said = verify._link_problems(site, "sub/b.html", pages["sub/b.html"], pages)
    assert len(said) == 3 and _expect("site_links_resolve") in said[0], said
    assert "has no element #nope" in said[1] and "leaves the site" in said[2]
