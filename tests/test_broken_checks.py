"""A check or page that raises on what it reads names that input (a run folder, a docs page) in one
line; it is never the bare 'internal error' that leaves the user to guess which input broke it."""
from types import SimpleNamespace

import pytest
from helpers import record, write_run

from reportgen.data import load
from reportgen.errors import ReportError

RUN = "20260101T000000Z-quick-f6ab9f827cfd"


def _boom(*_args, **_kwargs):
    raise TypeError("'NoneType' object is not subscriptable")


def test_a_run_a_check_breaks_on_is_named(tmp_path, monkeypatch):
    run = write_run(tmp_path, RUN, [record(RUN)])
    assert [r.run_id for r in load.read_runs(tmp_path)] == [RUN]
    monkeypatch.setattr(load, "_manifest_problems", _boom)
    monkeypatch.delenv("REPORTGEN_DEBUG", raising=False)
    with pytest.raises(ReportError) as caught:
        load.read_runs(tmp_path)
    (line,) = [p for p in caught.value.problems if "TypeError" in p]
    assert line.startswith(f"{run}: cannot be checked") and "\n" not in line
    monkeypatch.setenv("REPORTGEN_DEBUG", "1")   # the traceback, when asked for
    with pytest.raises(TypeError):
        load.read_runs(tmp_path)


def test_a_page_that_breaks_on_its_records_is_named(monkeypatch):
    from reportgen.publish import plugin
    monkeypatch.delenv("REPORTGEN_DEBUG", raising=False)
    monkeypatch.setattr(plugin, "Templates", lambda *_a: SimpleNamespace(names=lambda: {"table": _boom}))
    me = plugin.ReportgenPlugin.__new__(plugin.ReportgenPlugin)
    me.book = SimpleNamespace(set_page=lambda _uri: None)
    me.data, me.names_used, me.generated = None, set(), set()
    import jinja2
    me.jinja = jinja2.Environment()
    from conftest import ROOT
    page = SimpleNamespace(file=SimpleNamespace(src_uri="int8.md", abs_src_path=str(ROOT / "docs" / "int8.md")), meta={})
    with pytest.raises(ReportError) as caught:
        me.on_page_markdown("# x\n\n{{ table() }}\n", page, None, None)
    assert str(caught.value).startswith("docs/int8.md: cannot be checked or shown (TypeError: ")


def test_a_campaign_a_check_breaks_on_is_named(monkeypatch):
    from conftest import ROOT

    from reportgen import errors
    from study import schema
    runs = load.read_runs(ROOT / "results")
    assert load.read_campaigns(ROOT / "results", runs)
    monkeypatch.delenv("REPORTGEN_DEBUG", raising=False)
    monkeypatch.setattr(schema, "campaign_problems", _boom)
    with pytest.raises(ReportError) as caught:
        load.read_campaigns(ROOT / "results", runs)
    assert caught.value.problems and all(
        p.startswith(str(ROOT / "results" / "campaigns")) and "cannot be checked" in p for p in caught.value.problems)
    assert errors.debugging() is False
