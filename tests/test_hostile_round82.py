"""The eighty-second round of the hostile corpus (issue #29), site set: attack only, then fixed.

11 probes, 6 failed (three weak): a 254 KB page of 900 '[r]' and one reference title of 250 000 characters built
225 MB of HTML (two such pages: 1:50, 2.7 GB) before a bound after MkDocs refused it; that refusal left site.tmp
behind, which the next build called 'interrupted' (weak); a dot above right (U+0358) on i made 'int8 in TVM' twice;
a CSV cell 'x;"=2+3"' reached a ';'-locale spreadsheet as '=2+3' (weak); indented lines under a page's title were
built into the build's own machine banner; serve's folder redirect echoed '/\\evil.example/../assets' (weak).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import hashlib
import socket
import threading

import pytest
from test_hostile_round4 import _expect
from test_hostile_round78 import _site_markdown

MUTATIONS = {}
SPECIAL = {case: None for case in ("reference_title_repeated", "converted_html_bound", "manifest_refusal_cleans_up",
                                   "mark_not_an_accented_letter", "csv_quoted_formula", "banner_closed",
                                   "serve_redirects_to_site_url")}


def test_a_long_reference_definition_is_refused_before_converting():
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    refs = "\n\n".join(", ".join(["[r]"] * 150) for _ in range(6))
    page = "# t\n\n" + refs + '\n\n[r]: /x.html "' + "T" * 250000 + '"\n'
    title = '"' + "T" * 250000 + '"'
    for definition in (f"[r]: /x.html {title}", f"[r]:\n/x.html\n{title}", f"> [r]: /x.html {title}",
                       f"- item\n\n    [r]: /x.html {title}"):   # round 83: over three lines, in a quote, in a list
        page = "# t\n\n" + refs + "\n\n" + definition + "\n"
        said = nesting.conversion_problem("docs/a.md", page, extensions, configs)
        assert said and _expect("reference_title_repeated") in said and said.startswith("docs/a.md:"), said
    short = "# t\n\n" + refs + '\n\n[r]: /x.html "a title"\n'
    assert nesting.conversion_problem("docs/a.md", short, extensions, configs) is None


def test_the_builds_pages_are_bounded_together(monkeypatch):
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    monkeypatch.setattr(nesting, "BUILD_CONVERTED_CHARS", 20_000)
    converter = nesting.Converter(extensions, configs)
    page = "# t\n\n" + "some words here. " * 500 + "\n"
    assert converter.problem("docs/a.md", page, page) is None
    said = converter.problem("docs/b.md", page, page) or converter.problem("docs/c.md", page, page)
    assert said and said.startswith("docs/") and _expect("converted_html_bound") in said, said


def test_a_page_converting_to_megabytes_is_refused(monkeypatch):
    from reportgen.publish import nesting
    extensions, configs = _site_markdown()
    monkeypatch.setattr(nesting, "MAX_CONVERTED_CHARS", 100_000)   # the same rule at a size a test converts fast
    table = "|" + "a|" * 63 + "\n" + "|" + "-|" * 63 + "\n" + "|\n" * 60
    said = nesting.conversion_problem("docs/a.md", "# t\n\n" + "\n\n".join([table] * 8), extensions, configs)
    assert said and _expect("converted_html_bound") in said, said


def test_a_manifest_refusal_removes_site_tmp(tmp_path, monkeypatch):
    from conftest import copy_project
    from mkdocs.commands import build as mk_build
    from reportgen.commands import build
    from reportgen.errors import ReportError
    from reportgen.publish import sitecheck
    project = copy_project(tmp_path / "project")
    monkeypatch.setattr(mk_build, "build", lambda config: (tmp_path / "project" / "site.tmp" / "big.html").write_text("x"))

    def refuse(tmp):
        raise ReportError(f"{tmp}/big.html: 225052611 bytes, more than the 67108864 bytes (64 MiB) such a file may have")
    monkeypatch.setattr(sitecheck, "write_manifest", refuse)
    with pytest.raises(ReportError) as raised:
        build.build(project, project / "site")
    assert not (project / "site.tmp").exists()
    assert _expect("manifest_refusal_cleans_up") in str(raised.value.hint)


@pytest.mark.parametrize("title", ["i\u0358nt8 i\u0358n TVM", "i\u0313nt8", "int8 i\u1df8n", "na\u0131\u0308ve"])
def test_a_mark_no_accented_letter_has_is_refused(title):
    from reportgen.publish import configcheck
    assert _expect("mark_not_an_accented_letter") in configcheck.title_problem(title)
    for fine in ("Caf\u00e9 na\u00efve", "Cafe\u0301", "Vie\u0323\u0302t", "A\u030a", "n\u0303"):
        assert configcheck.title_problem(fine) is None, fine


@pytest.mark.parametrize("cell", ['x;"=2+3"', "a; =1+1", "a;\"'@x", 'x;"+cmd|x"'])
def test_a_quoted_or_spaced_formula_part_is_guarded(cell):
    from reportgen.publish import csvs
    guarded = csvs.guard(cell).split(";")
    assert all(part[:1] == _expect("csv_quoted_formula") for part in guarded[1:]), guarded
    assert csvs.guard("-1.5") == "-1.5" and csvs.guard('"quoted"') == '"quoted"'


@pytest.mark.parametrize("page", ["# GEMM\n    **checked by the maintainer**\n\ntext\n",
                                  "# GEMM\n\nfinding.\n\n<!-- reportgen:banner -->\n    **checked**\n\ntext\n"])
def test_indented_lines_under_the_banner_stay_the_pages_own(page):
    import markdown
    from reportgen.data.words import W
    from reportgen.publish import pagecontent
    extensions, configs = _site_markdown()
    note = W("machines.banner.admonition", text="machine `abc`")
    html = markdown.Markdown(extensions=extensions, extension_configs=configs).convert(
        pagecontent.under_title(page, note, below_finding=True))
    box = html[html.index('<div class="admonition info">'):html.index("</div>") + 6]
    assert "checked" not in box and "<code>**checked" in html, html
    assert _expect("banner_closed") in html


def test_serve_redirects_a_folder_to_the_sites_own_url(tmp_path):
    from reportgen.commands import serve
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text("<p>x</p>")
    (site / "assets" / "index.html").write_text("<p>a</p>")
    listed = {rel: hashlib.sha256((site / rel).read_bytes()).hexdigest() for rel in ("index.html", "assets/index.html")}
    httpd = serve.open_server(site, 0, listed)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        for path in ("/assets", "/\\evil.example/../assets", "//evil.example/../assets", "/%5Cevil.example/%2e%2e/assets"):
            with socket.create_connection(("127.0.0.1", httpd.server_address[1]), timeout=5) as conn:
                conn.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
                head = conn.recv(4096).decode("latin-1").split("\r\n\r\n")[0]
            location = [h for h in head.split("\r\n") if h.lower().startswith("location:")]
            assert location == [f"Location: {_expect('serve_redirects_to_site_url')}"], (path, head)
    finally:
        httpd.shutdown()
        httpd.server_close()
