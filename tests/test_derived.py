"""Derived figures (a ratio, a utilization) carry their provenance: every operand with its record,
the formula and the result, in numbers.json, on the provenance page the figure links to, and in
`reportgen trace`."""
import json
import re

from reportgen.commands import trace
from reportgen.render.figures import slug


def _derived(built_site):
    index = json.loads((built_site / "site" / "numbers.json").read_text(encoding="utf-8"))
    return [e for e in index if e.get("derived")]


def test_every_derived_figure_lists_operands_with_records(built_site):
    derived = _derived(built_site)
    assert derived, "the topic pages' findings show derived figures"
    for entry in derived:
        d = entry["derived"]
        assert d["formula"] and d["result"] == entry["value"]
        assert len(d["operands"]) >= 2
        for o in d["operands"]:
            assert o["record"] and o["run"] and o["value"]
            assert o["name"] in d["formula"]
            assert o["machine"] == entry["machine"]      # derived figures combine one machine's records


def test_a_derived_figure_links_to_its_formula_and_operands(built_site):
    entry = next(e for e in _derived(built_site) if e["page"] == "e2e.md"
                 and e["id"].endswith(("#vs_ort", "#vs_ort_paired")))
    page = (built_site / "site" / "e2e.html").read_text(encoding="utf-8")
    href = re.search(r'data-num="%s" href="([^"]+)"' % re.escape(entry["id"]), page).group(1)
    target, anchor = href.split("#")
    assert anchor == "derived-" + slug(entry["id"])
    prov = (built_site / "site" / target).read_text(encoding="utf-8")
    section = prov[prov.index(f'id="{anchor}"'):]
    section = section[:section.find('<h3', 10)]
    assert entry["derived"]["formula"].replace(" ", "") in re.sub(r"<[^>]+>|\s", "", section).replace("&amp;", "&")
    for o in entry["derived"]["operands"]:
        assert "#" + slug(o["record"]) in section        # each operand links to its record's entry


def test_trace_prints_formula_and_operands(built_site):
    entry = _derived(built_site)[0]
    out = trace.trace(built_site, entry["id"])
    assert f"formula  {entry['derived']['formula']} = {entry['value']}" in out
    for o in entry["derived"]["operands"]:
        assert f"record {o['record']}" in out
