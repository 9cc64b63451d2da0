"""The acceptance checklist: each requirement kind, and the --strict gate of verify and build."""
import json
import shutil

import pytest
import yaml
from conftest import ROOT

from reportgen.data import archive
from reportgen.commands import build
from reportgen.pages import conclusions
from reportgen.data import seed
from reportgen.publish import coverage, verify
from reportgen.errors import ReportError


def _item(require, page="p.md", anchor="a"):
    return {"id": "x", "article": "合并稿", "content": "c", "seed_sections": ["1"], "page": page, "anchor": anchor,
            "require": require}


def _eval(require, pages, numbers=(), tables=None):
    return coverage.evaluate([_item(require)], pages, list(numbers), tables or {})[0]


PAGE = '<h2 id="a">标题</h2><p>tvm.compile 与 <code>relax.VirtualMachine</code></p>'


def test_terms_and_anchor():
    assert _eval({"terms": ["tvm.compile", "relax.VirtualMachine"]}, {"p.md": PAGE}).covered
    res = _eval({"terms": ["relay.build"]}, {"p.md": PAGE.replace('id="a"', 'id="b"')})
    assert not res.covered and res.reasons == ["缺少锚点 #a", "缺少术语 “relay.build”"]


def test_current_accepts_a_list_of_families():
    numbers = [{"page": "p.md", "id": "e2e/x#p50", "kind": "current", "record": "e2e/x"}]
    assert _eval({"current": "e2e"}, {"p.md": PAGE}, numbers).covered
    res = _eval({"current": ["e2e", "int8"]}, {"p.md": PAGE}, numbers)
    assert res.reasons == ["尚无 int8 的当前复测数字"]


def test_elsewhere_checks_other_pages():
    pages = {"p.md": PAGE, "graph.md": "<p>te.create_schedule → tvm.s_tir.Schedule</p>"}
    assert _eval({"elsewhere": {"graph.md": ["te.create_schedule", "tvm.s_tir.Schedule"]}}, pages).covered
    res = _eval({"elsewhere": {"graph.md": ["AutoTVM"]}}, pages)
    assert res.reasons == ["graph.md 缺少 “AutoTVM”"]


def test_snippets_match_verbatim_whatever_the_wrapping():
    code = '<pre><code><span class="n">x</span> <span class="o">=</span>\n    <span>relay.var</span>(1)</code></pre>'
    need = {"snippets": {"s1": "x = relay.var(1)\n"}, "formulas": {"f1": "2*M*K*N"}}
    res = _eval(need, {"p.md": PAGE, "q.md": code + "<p>约 2*M*K*N 次</p>"})
    assert res.covered, res.reasons
    res = _eval(need, {"p.md": PAGE, "q.md": code.replace("relay.var", "relax.Var")})
    assert res.reasons == ["原文代码 0/1 出现在站内，缺：s1", "公式 0/1 出现在站内，缺：f1"]


def test_conclusions_must_each_be_listed_with_a_verdict():
    ids = conclusions.ids()
    listed = "".join(f'<span data-conclusion="{i}" data-verdict="pending">…</span>' for i in ids[1:])
    res = _eval({"conclusions": ids}, {"p.md": PAGE + listed})
    assert res.reasons == [f"原文结论 {len(ids) - 1}/{len(ids)} 条带着当前证据列出，缺：{ids[0]}"]
    first = f'<span data-conclusion="{ids[0]}" data-verdict="supports">…</span>'
    assert _eval({"conclusions": ids}, {"p.md": PAGE + listed + first}).covered


def test_read_items_resolves_all_and_rejects_unknown_requirements(tmp_path):
    shutil.copy(ROOT / "archive" / "code.yaml", tmp_path / "code.yaml")
    items = [_item({"snippets": "all", "conclusions": "all"})]
    (tmp_path / "coverage.yaml").write_text(yaml.safe_dump({"rules": [], "items": items}), encoding="utf-8")
    _rules, read = coverage.read_items(tmp_path)
    assert "s29_hello_relay" in read[0]["require"]["snippets"]
    assert read[0]["require"]["conclusions"] == conclusions.ids()
    items = [_item({"words": ["x"]}), _item({"terms": ["y"]})]
    (tmp_path / "coverage.yaml").write_text(yaml.safe_dump({"rules": [], "items": items}), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        coverage.read_items(tmp_path)
    assert any("items[0].require.words: unknown requirement" in p for p in err.value.problems)
    assert any("duplicate id 'x'" in p for p in err.value.problems)


def test_strict_problems_name_each_unmet_item(tmp_path):
    path = tmp_path / "coverage.json"
    path.write_text(json.dumps([
        {"id": "a", "page": "p.md", "anchor": "x", "covered": True, "reasons": []},
        {"id": "b", "page": "q.md", "anchor": "y", "covered": False, "reasons": ["缺少锚点 #y", "缺少术语 “z”"]}]),
        encoding="utf-8")
    assert coverage.strict_problems(path) == [f"{path}: item 'b' (q.md#y) not covered: 缺少锚点 #y; 缺少术语 “z”"]
    assert coverage.strict_problems(tmp_path / "missing.json")[0].startswith(f"{tmp_path / 'missing.json'}: cannot read")


def _set_coverage(project, covered):
    path = project / "site" / "coverage.json"
    results = json.loads(path.read_text(encoding="utf-8"))
    for r in results:
        r["covered"], r["reasons"] = covered(r), ([] if covered(r) else ["缺少术语 “x”"])
    path.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    from reportgen.publish import sitecheck
    sitecheck.write_manifest(project / "site")   # as a build that found these results lists them
    return results


def test_verify_strict_fails_exactly_on_unmet_items(built_copy):
    results = _set_coverage(built_copy, lambda r: r["id"] != "intro.why")
    assert verify.verify(built_copy, built_copy / "site")          # the normal gate does not look at coverage
    with pytest.raises(ReportError) as err:
        verify.verify(built_copy, built_copy / "site", strict=True)
    assert err.value.problems == [f"{built_copy / 'site' / 'coverage.json'}: item 'intro.why' "
                                  f"({results[0]['page']}#{results[0]['anchor']}) not covered: 缺少术语 “x”"]
    _set_coverage(built_copy, lambda r: True)
    assert verify.verify(built_copy, built_copy / "site", strict=True)


def test_the_built_site_reports_its_coverage(built_site):
    results = json.loads((built_site / "site" / "coverage.json").read_text(encoding="utf-8"))
    unmet = [r for r in results if not r["covered"]]
    assert all(r["reasons"] for r in unmet)
    if unmet:
        with pytest.raises(ReportError) as err:
            verify.verify(built_site, built_site / "site", strict=True)
        assert len(err.value.problems) == len(unmet)
    else:
        assert verify.verify(built_site, built_site / "site", strict=True)


@pytest.mark.slow   # a whole strict build; the fast tier checks strict verification on the shared build
# (test_verify_strict_fails_exactly_on_unmet_items) and that a refused build leaves the site (test_hostile)
def test_strict_build_fails_and_leaves_the_published_site(project):
    site = project / "site"
    site.mkdir()
    (site / "index.html").write_text("published", encoding="utf-8")
    (site / build.MARKER).write_text("a previous site\n", encoding="utf-8")
    path = project / "archive" / "coverage.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["items"] = [_item({"terms": ["这句话不在任何页面上"]}, page="index.md", anchor="why")]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    archive.reseal(project / "archive")   # a deliberate archive change, as the README says
    with pytest.raises(ReportError) as err:
        build.build(project, site, strict=True)
    assert any("item 'x' (index.md#why) not covered: 缺少术语 “这句话不在任何页面上”" in p for p in err.value.problems)
    assert (site / "index.html").read_text(encoding="utf-8") == "published"


SEED_SECTIONS = [str(n) for n in range(1, 36)] + ["21b", "22b", "23b", "24b", "参考资料"]


def test_every_seed_section_maps_to_a_page_and_anchor():
    _rules, items = coverage.read_items(ROOT / "archive")
    mapped = {s for item in items for s in item["seed_sections"]}
    assert [s for s in SEED_SECTIONS if s not in mapped] == []
    assert all(item["page"].endswith(".md") and item["anchor"] for item in items)


def test_every_snippet_names_where_today_lives():
    code = seed.read_code(ROOT / "archive")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    for snip in code["snippets"]:
        assert snip["today"].split("#")[0] in pages, snip["id"]
        assert snip["text"].endswith("\n") and snip["seed_section"]


def test_one_figure_id_shows_one_text_on_every_page(built_site):
    """Pages that quote the same figure (same record, same quantity) must print it the same way."""
    numbers = json.loads((built_site / "site" / "numbers.json").read_text(encoding="utf-8"))
    texts = {}
    for entry in numbers:
        texts.setdefault(entry["id"], set()).add(entry["value"])
    assert {k: v for k, v in texts.items() if len(v) > 1} == {}


# --- the content map: every passage of the seed, checked by content -----------------------------

def _passages(*passages, rules=None):
    return {"rules": rules or {"prose": {"min": 0.5}, "data": {"min": 1.0}}, "passages": list(passages)}


def test_a_prose_passage_is_kept_only_with_all_its_key_facts():
    content = _passages({"id": "§1¶1", "kind": "prose", "page": "p.md", "anchor": "a", "facts": ["tvm.compile", "VirtualMachine"]},
                        {"id": "§1¶2", "kind": "prose", "page": "p.md", "facts": ["tvm.compile", "寄存器压力"]},
                        {"id": "§1¶3", "kind": "prose", "dropped": "重复"})
    results = coverage.evaluate_content(content, {"p.md": PAGE}, [], {}, {}, ROOT)
    assert [r.covered for r in results] == [True, False, False]
    assert results[1].reasons == ["p.md 缺少要点 “寄存器压力”"]
    ratio = coverage.ratios(content, results)["prose"]
    assert (ratio["kept"], ratio["total"], ratio["met"], ratio["missing"]) == (1, 3, False, ["§1¶2", "§1¶3"])


def test_key_facts_of_an_anchored_passage_must_be_in_that_section():
    page = '<h2 id="a">A</h2><p>寄存器压力</p><h3 id="a1">A1</h3><p>缓存组冲突</p><h2 id="b">B</h2><p>动态形状</p>'
    passage = {"id": "§4¶2", "kind": "prose", "page": "p.md", "anchor": "a", "facts": ["寄存器压力", "缓存组冲突"]}
    assert coverage.evaluate_content(_passages(passage), {"p.md": page}, [], {}, {}, ROOT)[0].covered
    passage["facts"].append("动态形状")        # on the page, but in the next section
    res = coverage.evaluate_content(_passages(passage), {"p.md": page}, [], {}, {}, ROOT)[0]
    assert res.reasons == ["p.md#a 缺少要点 “动态形状”"]


def test_a_data_passage_needs_its_archived_figures_on_its_own_page():
    content = _passages({"id": "§26¶1/data", "kind": "data", "page": "p.md", "figures": ["prose_numbers/x/value"]})
    numbers = [{"page": "q.md", "id": "prose_numbers/x/value", "kind": "historical"}]
    res = coverage.evaluate_content(content, {"p.md": PAGE, "q.md": ""}, numbers, {}, {}, ROOT)[0]
    assert res.reasons == ["p.md 没有显示历史数字 prose_numbers/x/value"]
    numbers[0]["page"] = "p.md"
    assert coverage.evaluate_content(content, {"p.md": PAGE}, numbers, {}, {}, ROOT)[0].covered


def test_a_code_passage_needs_its_labelled_current_equivalent(tmp_path):
    (tmp_path / "snip.py").write_text("# 当前版本建议写法：x\nprint(1)\n", encoding="utf-8")
    content = _passages({"id": "§3code1", "kind": "code", "page": "p.md", "snippet": "s", "today": "snip.py"})
    block = '<div data-today="snip.py"><p>当前版本建议写法：x</p><pre># 当前版本建议写法：x\nprint(1)</pre></div><!-- /today -->'
    assert coverage.evaluate_today(content, {"p.md": PAGE + block}, tmp_path) == {"§3code1": []}
    assert coverage.evaluate_today(content, {"p.md": PAGE + block.replace("print(1)", "")}, tmp_path) == \
        {"§3code1": ["p.md 没有完整包含 snip.py"]}


def test_the_content_map_covers_the_whole_seed_and_meets_the_rules(built_site):
    content = seed.read_content_map(ROOT / "archive")
    ids = [p["id"] for p in content["passages"]]
    for section in SEED_SECTIONS:
        if section not in ("32", "34", "35", "参考资料"):
            assert any(i.startswith(f"§{section}¶") or i.startswith(f"§{section}code") or i.startswith(f"§{section}table")
                       for i in ids), section
    results = json.loads((built_site / "site" / "coverage.json").read_text(encoding="utf-8"))
    ratios = {r["id"]: r for r in results if r["id"].startswith("ratio.")}
    assert set(ratios) == {"ratio.prose", "ratio.code", "ratio.data", "ratio.conclusion", "ratio.today"}
    assert all(r["covered"] for r in ratios.values()), [r["reasons"] for r in ratios.values()]


@pytest.mark.slow   # a whole strict build
def test_strict_build_names_the_paragraph_whose_key_fact_was_removed(project):
    page = project / "docs" / "gemm-ladder.md"
    text = page.read_text(encoding="utf-8")
    assert "转置 B" in text
    page.write_text(text.replace("转置 B", "换一种写法"), encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build.build(project, project / "site", strict=True)
    assert any("item '§12¶3' (gemm-ladder.md#memory) not covered: gemm-ladder.md#memory 缺少要点 “转置 B”" in p
               for p in err.value.problems), err.value.problems
