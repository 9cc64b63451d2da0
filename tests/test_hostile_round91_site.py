"""The ninety-first round of the hostile corpus (issue #29), site set: attack only, then fixed.

18 probes, 6 failed (4 weak).  Mended here:
- print.html and study.pdf rewritten after the build (the unconfirmed flags cut out of the printout, a sentence
  reversed; a PDF of any bytes with an OpenAction script), their sha256 updated in site-files.json, passed verify:
  the print page is held to the one `reportgen pdf` assembles from a fresh build, the PDF to nothing active;
- figures typed in Chinese or Roman numerals ('\u5feb\u4e09\u500d', '\u5341\u6beb\u79d2', '\u2162'), with '\u2715' or '\u5f20/\u79d2', or in mkdocs.yml's
  titles and settings are hand-typed figures (publish.numerals; seven committed pages held one and were reworded);
- a link 'http:host/x' (a path of the site when served, another host from file://) is refused;
- serve counts its connections, not its threads (two a connection: 34 half-open ones shut visitors out), and says
  once that it is full;
- round 92's P12 and P13: the jump list every flag links to kept as '{% if false %}{{ history_jumps() }}{% endif %}'
  or inside an HTML comment, and the machine card so, passed: a placeholder counts as shown when the page ran it,
  its text not in a comment (sandbox.render_shown), the jump list must be run (history.SHOWN), and the banner
  stands on pages whose card did not run; round 92's P6: archive/environments.yaml's label and facts were Markdown
  and HTML on the environment page (a live link to another host): printed as text now; round 92's P4: `trace
  RECORD#no_such_figure` says the site shows no such figure.
Left open: a unit-less ratio after its name ('\u52a0\u901f\u6bd4 3.27'), a figure inside a words file's text; an empty download
name; `reportgen pdf` after a build killed between its renames; --root and
the package's words.

The case ids below are entries of tests/data/hostile/cases.yaml (test_hostile.py finds each one's test).
"""
import json

from test_hostile_round4 import _expect

MUTATIONS, SPECIAL = {}, dict.fromkeys(("print_page_rebuilt", "pdf_nothing_active", "numerals_typed",
                                        "more_units_typed", "title_figure_typed",
                                        "http_without_host", "serve_counts_connections",
                                        "placeholder_shown", "archive_environment_text",
                                        "trace_unknown_figure"))


def _site(folder, files):
    from reportgen.publish import sitecheck
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "machine.json").write_text(json.dumps({"publication_machine": "0" * 12, "reason": "newest"}))
    sitecheck.write_manifest(folder)
    return folder


def test_a_print_page_is_held_to_the_one_pdf_assembles(tmp_path):
    from reportgen.publish import sitecheck
    page = b"<p>the flags</p>"
    site = _site(tmp_path / "site", {"index.html": b"<p>x</p>", "print.html": b"<p>flags cut</p>"})

    def build(_root, fresh, _machine):
        return _site(fresh, {"index.html": b"<p>x</p>"})
    said = sitecheck.rebuild_problems(tmp_path, site, build, printed=lambda fresh: page)
    assert [p for p in said if p.startswith(f"{site / 'print.html'}: ") and _expect("print_page_rebuilt") in p], said
    (site / "print.html").write_bytes(page)
    sitecheck.write_manifest(site)
    assert sitecheck.rebuild_problems(tmp_path, site, build, printed=lambda fresh: page) == []


def test_the_pdf_holds_nothing_active(tmp_path):
    from reportgen.publish import sitecheck
    pdf = tmp_path / "study.pdf"
    (tmp_path / "print.html").write_text("<html></html>", encoding="utf-8")   # pdf writes both (round 94)
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog/OpenAction<</S/JavaScript/JS(app.alert(1))>>>>endobj\n%%EOF\n")
    said = sitecheck.pdf_problems(tmp_path)
    assert said and said[0].startswith(f"{pdf}: ") and _expect("pdf_nothing_active") in said[0]
    pdf.write_bytes(b"<html>")
    assert "not a PDF" in sitecheck.pdf_problems(tmp_path)[0]
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R/AAx 1>>endobj\n%%EOF\n")   # a name that begins so
    assert sitecheck.pdf_problems(tmp_path) == []


def test_figures_spelled_in_numerals_are_typed_figures(tmp_path):
    from reportgen.publish import pagecontent
    (tmp_path / "index.md").write_text("# x\n\nTVM \u5feb\u4e09\u500d\uff0c\u7ea6\u5341\u6beb\u79d2\uff0c\u518d\u5feb\u4e09\u70b9\u4e8c\u4e03\u500d\uff0c"
                                       "\u767e\u5206\u4e4b\u4e09\u5341\uff0c\u5feb \u2162 \u500d\u3002\n", encoding="utf-8")
    said = pagecontent.typed_figures(tmp_path)
    for figure in ("'3\u500d'", "'10\u6beb\u79d2'", "'3.27\u500d'", "'30%'", "'3 \u500d'"):
        assert any(figure in p and p.startswith(f"{tmp_path / 'index.md'}:3: ") for p in said), (figure, said)
    assert _expect("numerals_typed") in said[0]
    from reportgen.publish import numerals   # round 92: a circled numeral (NFKC) and the financial forms
    assert numerals.as_digits("\u5feb\u3282\u500d \u5feb \u53c1 \u500d \u58f9\u4f70\u8d30\u62fe") == "\u5feb3\u500d \u5feb 3 \u500d 120"


def test_more_units_are_units(tmp_path):
    from reportgen.publish import pagecontent
    (tmp_path / "index.md").write_text("# x\n\n\u5feb 3\u2715\uff0c\u541e\u5410 2000 \u5f20/\u79d2\u3002\n", encoding="utf-8")
    said = pagecontent.typed_figures(tmp_path)
    assert len(said) == 2 and all(_expect("more_units_typed") in p for p in said), said


def test_a_figure_in_a_title_is_refused():
    from reportgen.publish import pagecontent   # configcheck reads every title and setting so (round 34's check)
    said = pagecontent.typed_in_rendered("mkdocs.yml", "TVM \u7b97\u5b50\uff1a\u6bd4 ONNX Runtime \u5feb\u4e09\u500d")
    assert said and _expect("title_figure_typed") in said[0]
    assert pagecontent.typed_in_rendered("mkdocs.yml", "TVM \u7b97\u5b50\u4f18\u5316\u5b9e\u6218") == []


def test_an_http_link_without_a_host_is_refused(tmp_path):
    from reportgen.publish import links
    (tmp_path / "a.html").write_text("x")
    said = links.problems(tmp_path, "a.html", ["http:evil.example/install.sh", "HTTPS:x", "https://ok.example/"], {})
    assert len(said) == 2 and all(_expect("http_without_host") in p for p in said), said


def test_serve_counts_connections_not_threads(monkeypatch):
    import socket
    import threading
    from reportgen.commands import serve
    said, opened = [], threading.Event()

    class Hold(serve.http.server.BaseHTTPRequestHandler):
        def handle(self):
            opened.set()
            self.rfile.read(1)   # held open until the client goes
    monkeypatch.setattr(serve, "MAX_CONNECTIONS", 3)
    monkeypatch.setattr(serve, "_log", said.append)
    server = serve.Server(("127.0.0.1", 0), Hold)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    clients = [socket.create_connection(server.server_address) for _ in range(5)]
    try:
        for _ in range(1000):   # the fourth and fifth are turned away as soon as they are accepted
            if len(said) >= 1:
                break
            threading.Event().wait(0.01)
        assert said and _expect("serve_counts_connections") in said[0] and len(said) == 1, said
    finally:
        for c in clients:
            c.close()
        server.shutdown()
        server.server_close()


def test_a_placeholder_never_run_or_written_into_a_comment_is_not_shown():
    import pytest
    from types import SimpleNamespace
    from reportgen.errors import ReportError
    from reportgen.publish import sandbox
    from reportgen.publish.plugin import ReportgenPlugin
    env, names = sandbox.sandbox(), {"history_jumps": lambda: "the jump list, every flag's target"}
    text, shown = sandbox.render_shown(env, env.parse("a {% if false %}{{ history_jumps() }}{% endif %} b"), names, "p")
    assert shown == set()
    with pytest.raises(ReportError) as hidden:
        sandbox.render_shown(env, env.parse("a <!-- {{ history_jumps() }} -->"), names, "docs/history.md")
    assert _expect("placeholder_shown") in str(hidden.value) and "history_jumps" in str(hidden.value)
    text, shown = sandbox.render_shown(env, env.parse('??? note\n    {{ history_jumps() | indent(4) }}'), names, "p")
    assert shown == {"history_jumps"}
    stub = SimpleNamespace(names_defined={"history_jumps"}, names_used={"history_jumps"}, names_shown=set())
    with pytest.raises(ReportError) as unrun:
        ReportgenPlugin.on_post_build(stub, None)
    assert "history_jumps" in str(unrun.value) and "never run" in str(unrun.value)


def test_an_archive_environment_is_printed_as_text():
    from reportgen.pages import machines
    env = machines.historical_environment({"label": "2020 [x](https://evil.example) <i>i</i>",
                                           "facts": ["Ubuntu **b** <b>b</b>"], "seed_sections": ["20"]})
    assert "<" not in env["label"] + env["facts"][0] and "](" not in env["label"] and env["seed_sections"] == ["20"]
    assert _expect("archive_environment_text") in env["label"] + env["facts"][0]


def test_trace_says_a_figure_name_the_site_does_not_show(tmp_path):
    from reportgen.commands import trace
    (tmp_path / "numbers.json").write_text(json.dumps([{"id": "e2e/x#p50_ms", "page": "e2e.md"}]))
    said = trace.derived_lines(tmp_path, "e2e/x#no_such_figure")
    assert said and _expect("trace_unknown_figure") in said[0]
    assert trace.derived_lines(tmp_path, "e2e/x#p50_ms") == [] and trace.derived_lines(tmp_path, "e2e/x") == []
