"""The eighty-ninth round of the hostile corpus (issue #29): attack only, then fixed.

Site set, 10 probes, 6 failed (four weak), most in round 88's link check: a docs link '/%00' ended the build in an
internal ValueError, a 300-character one in 'File name too long' naming no page; links from the host's root
('/index.html') and a file named as a folder ('page.html/', '%2F') passed though they go nowhere on file:// or a
sub-path; a snippet's counterpart anchor that no heading has was named on the built page only; `reportgen pdf` wrote
print.html links that went nowhere ('#' alone, a chart's id, a provenance page's '../index.html').

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
import pytest
from test_hostile_round4 import _expect

SITE_CASES = ("link_odd_path_named", "link_from_host_root", "print_links_inside", "code_today_anchor_a_heading")
MUTATIONS, SPECIAL = {}, dict.fromkeys(SITE_CASES)


@pytest.mark.parametrize("href,said", [("/%00", "host's root"), ("x%00.html", "not a path"), ("a.html/", "not a path"),
                                       ("a.html%2F", "not a path"), ("sub//b.html", "not a path"),
                                       ("x" * 300 + ".html", "cannot be followed"), ("/index.html", "host's root")])
def test_an_odd_link_is_named_with_its_page(href, said, tmp_path):
    from reportgen.publish import links
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_text("<p>a</p>", encoding="utf-8")
    out = links.problems(site, "a.html", [href], {"a.html": set()})
    assert len(out) == 1 and out[0].startswith(f"{site / 'a.html'}: link ") and said in out[0], out
    assert _expect("link_odd_path_named") in out[0] or _expect("link_from_host_root") in out[0]
    assert links.problems(site, "404.html", ["/a.html"], {}) == []   # the theme's 404 page, served from the root


def test_print_page_links_stay_inside_it():
    from reportgen.commands import pdf
    stems = {"index", "gemm", "provenance/gemm_tvm"}
    out = pdf._rewrite('<a href="#">a</a><a href="#chart-x">c</a><a href="../index.html#t">i</a>'
                       '<a href="../data/runs/x.log">l</a><p id="q">', "provenance/gemm_tvm", stems)
    assert 'href="#provenance/gemm_tvm"' in out and 'href="#chart-x"' in out and 'href="#index--t"' in out
    assert 'href="data/runs/x.log"' in out and 'id="provenance/gemm_tvm--q"' in out, _expect("print_links_inside")


def test_a_code_snippets_today_anchor_is_a_heading_of_its_page(tmp_path):
    import shutil
    import yaml
    from conftest import ROOT
    from reportgen.data import safeyaml, seed
    from reportgen.errors import ReportError
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    path = tmp_path / "archive" / "code.yaml"
    data = safeyaml.loads(path.read_text(encoding="utf-8"))
    assert seed.read_code(tmp_path / "archive")
    data["snippets"][0]["today"] = "compiler.md#nosuch"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_code(tmp_path / "archive")
    assert "snippets[0].today" in str(refused.value) and _expect("code_today_anchor_a_heading") in str(refused.value)
