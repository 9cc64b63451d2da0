"""The twenty-fourth round of the hostile corpus (issue #29), attack only, then partly fixed: docs
pages were rendered by an unsandboxed Jinja whose own globals (lipsum, cycler) reached Python's
builtins (a page wrote and read files anywhere); host control files (_worker.js, _redirects) were
copied into the site as inert; the manifest was rewritten in place, so a cut write broke the site.
Fixed after the round: a page's own #__config (Material starts its search worker from the first one),
and serve trusting the manifest that sits in the folder it vouches for, read once at start.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import hashlib
import socket
import threading

import pytest
from conftest import ROOT
from test_hostile_round4 import _expect

MUTATIONS = {}


@pytest.mark.parametrize("page", [
    "{% set _ = lipsum.__globals__['__builtins__']['open']('OUT', 'w').write('x') %}",
    "{{ cycler.__init__.__globals__.os.popen('echo SECRET').read() }}",
    "{{ ''.__class__.__mro__ }}",
])
def test_a_docs_page_cannot_reach_python_through_jinja(tmp_path, page):
    """Round 24 #1, #2: the placeholder check let Jinja's own globals through, and the environment was
    not sandboxed; now it is, with no globals."""
    import jinja2
    import jinja2.sandbox
    source = page.replace("OUT", str(tmp_path / "written"))
    jinja = jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)
    jinja.globals.clear()
    with pytest.raises((jinja2.exceptions.SecurityError, jinja2.exceptions.UndefinedError)):
        jinja.from_string(source).render()
    assert not (tmp_path / "written").exists(), _expect("docs_jinja_sandbox")


def test_the_plugins_environment_is_the_sandboxed_one():
    import inspect
    import jinja2.sandbox
    from reportgen.publish import plugin
    text = inspect.getsource(plugin.ReportgenPlugin.on_config)
    assert "jinja2." not in text and text.count("_sandbox(") == 3   # every page render goes through it
    for finalize in (None, plugin._digit_free, plugin._page_own):
        env = plugin._sandbox(finalize)
        assert isinstance(env, jinja2.sandbox.ImmutableSandboxedEnvironment) and not env.globals
        with pytest.raises(jinja2.exceptions.UndefinedError):
            env.from_string("{{ lipsum.__globals__ }}").render()


@pytest.mark.parametrize("name", ["_worker.js", "_redirects", ".htaccess", "sub/_headers"])
def test_a_host_control_file_in_the_site_is_refused(tmp_path, name):
    from reportgen.publish import sitecheck
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("export default { fetch() {} }")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any(_expect("host_control_file") in p for p in found), found


def test_the_manifest_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """Round 24 #9: a write cut by a full disk left site-files.json cut."""
    import os
    from reportgen.data import plainfile
    from reportgen.publish import sitecheck
    (tmp_path / "index.html").write_text("<p>x</p>")
    sitecheck.write_manifest(tmp_path)
    before = (tmp_path / sitecheck.MANIFEST).read_text()
    real = os.fdopen

    def cut(fd, mode="r", *args, **kwargs):
        fh = real(fd, mode, *args, **kwargs)
        if "w" not in mode:
            return fh

        class Cut:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fh.close()

            def write(self, data):
                fh.write(data[:10])
                raise OSError(28, "No space left on device")
        return Cut()

    monkeypatch.setattr(plainfile.os, "fdopen", cut)
    with pytest.raises(OSError):
        sitecheck.add_to_manifest(tmp_path, ["index.html"])
    assert (tmp_path / sitecheck.MANIFEST).read_text() == before and sorted(p.name for p in tmp_path.iterdir()) == \
        ["index.html", sitecheck.MANIFEST], _expect("manifest_written_whole")


def _config(search=None, base="."):
    from reportgen.publish import verify
    worker = search or sorted(verify.shipped_scripts(ROOT, workers=True))[0]
    return f'<script id="__config" type="application/json">{{"base": "{base}", "search": "{worker}"}}</script>'


def _page_problems(folder, body):
    from reportgen.publish import verify
    (folder / "index.html").write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    return verify._script_problems(ROOT, folder, verify._parse_pages(folder, []))


def test_the_theme_config_alone_passes(tmp_path):
    from reportgen.publish import verify
    assert verify.shipped_scripts(ROOT, workers=True), "the theme's templates name a search worker"
    chart = '<script type="application/json" id="spec-roofline">{"mark": "point"}</script>'
    assert _page_problems(tmp_path, chart + _config()) == []


@pytest.mark.parametrize("case, planted", [
    # round 24 #3: a page's own config first: Material reads the first #__config and starts its worker
    ("page_own_config", '<script id="__config" type="application/json">'
                        '{"base": ".", "search": "assets/js/planted.js"}</script>'),
    ("page_own_config", '<p id="__config">{"base": ".", "search": "assets/js/planted.js"}</p>'),
    ("page_data_script", '<script type="application/json" id="settings">{"a": 1}</script>'),
    ("page_data_script", '<script type="application/json" id="spec-x">{"usermeta": {"embedOptions": {}}}</script>'),
])
def test_a_pages_own_settings_are_refused(tmp_path, case, planted):
    found = _page_problems(tmp_path, planted + _config())
    assert found and all(line.startswith(str(tmp_path / "index.html")) and "\n" not in line for line in found)
    assert any(_expect(case) in line for line in found), found


@pytest.mark.parametrize("config", [_config("assets/js/planted.js"), _config(base="https://example.org/"),
                                    '<script id="__config" type="application/json">{"search": "a", "search": "b"}</script>'])
def test_the_one_config_names_the_theme_worker(tmp_path, config):
    found = _page_problems(tmp_path, config)
    assert found and all(_expect("page_data_script") in line for line in found), found


def _site(tmp_path):
    from reportgen.publish import plugin, sitecheck
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(f"<html><head>{plugin.CSP_META}</head><body><p>home</p></body></html>")
    sitecheck.write_manifest(site)
    return site


def test_serve_reads_the_pages_not_only_the_manifest(tmp_path, monkeypatch):
    """Round 24 #14: a planted page and script, added to site-files.json with their sha256, were served."""
    from reportgen.commands import serve
    from reportgen.errors import ReportError
    from reportgen.publish import plugin, sitecheck, verify
    site = _site(tmp_path)
    assert verify.script_problems(ROOT, site) == []
    (site / "x.html").write_text(f"<html><head>{plugin.CSP_META}"
                                 '</head><body><script src="x.js"></script></body></html>')
    (site / "x.js").write_text("fetch('/')")
    sitecheck.write_manifest(site)   # the planter rewrites the list too
    assert sitecheck.manifest_problems(site) == []
    monkeypatch.setattr(serve, "open_server", lambda *a: pytest.fail("served a site holding a planted page"))
    with pytest.raises(ReportError) as err:
        serve.serve(site, 0, ROOT)
    assert any("x.html" in line and _expect("serve_reads_pages") in line for line in err.value.problems), err.value.problems


def _get(port, path):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return data


def test_serve_answers_only_listed_files_with_their_listed_bytes(tmp_path, capsys):
    """Round 24 #15: the manifest was checked once, at start; a page planted later was served."""
    from reportgen.commands import serve
    site = _site(tmp_path)
    (site / "sub").mkdir()
    httpd = serve.open_server(site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        port = httpd.server_address[1]
        assert _get(port, "/").startswith(b"HTTP/1.0 200") and b"home" in _get(port, "/index.html")
        (site / "late.htm").write_text('<script src="x.js"></script>')
        (site / "sub" / "index.html").write_text("<p>planted</p>")
        for path in ("/late.htm", "/sub/"):
            assert _get(port, path).startswith(b"HTTP/1.0 404"), path
        (site / "index.html").write_text("<p>changed</p>")
        reply = _get(port, "/index.html")
        assert reply.startswith(b"HTTP/1.0 404") and b"changed" not in reply, _expect("serve_listed_bytes")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert "changed since the build listed it" in capsys.readouterr().out


SPECIAL = {case: None for case in ("docs_jinja_sandbox", "host_control_file", "manifest_written_whole",
                                   "page_own_config", "page_data_script", "serve_reads_pages", "serve_listed_bytes")}
