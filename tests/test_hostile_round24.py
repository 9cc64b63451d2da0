"""The twenty-fourth round of the hostile corpus (issue #29), attack only, then partly fixed: docs
pages were rendered by an unsandboxed Jinja whose own globals (lipsum, cycler) reached Python's
builtins (a page wrote and read files anywhere); host control files (_worker.js, _redirects) were
copied into the site as inert; the manifest was rewritten in place, so a cut write broke the site.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
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
    from reportgen.publish import plugin
    text = inspect.getsource(plugin.ReportgenPlugin.on_config)
    assert "ImmutableSandboxedEnvironment" in text and "globals.clear()" in text


@pytest.mark.parametrize("name", ["_worker.js", "_redirects", ".htaccess", "sub/_headers"])
def test_a_host_control_file_in_the_site_is_refused(tmp_path, name):
    from reportgen.publish import sitecheck
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("export default { fetch() {} }")
    found = sitecheck.other_markup_problems(tmp_path, lambda rel: False)
    assert any(_expect("host_control_file") in p for p in found), found


def test_the_manifest_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """Round 24 #9: a write cut by a full disk left site-files.json cut."""
    from reportgen.publish import nofollow, sitecheck
    (tmp_path / "index.html").write_text("<p>x</p>")
    sitecheck.write_manifest(tmp_path)
    before = (tmp_path / sitecheck.MANIFEST).read_text()
    real = nofollow.write_text

    def cut(top, rel, text):
        real(top, rel, text[:10])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(nofollow, "write_text", cut)
    with pytest.raises(OSError):
        sitecheck.add_to_manifest(tmp_path, ["index.html"])
    assert (tmp_path / sitecheck.MANIFEST).read_text() == before and sorted(p.name for p in tmp_path.iterdir()) == \
        ["index.html", sitecheck.MANIFEST], _expect("manifest_written_whole")


SPECIAL = {case: None for case in ("docs_jinja_sandbox", "host_control_file", "manifest_written_whole")}
