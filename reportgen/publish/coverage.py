"""The acceptance checklist (seed §32, §34), evaluated against the rendered pages.

An item is covered only when its page has its anchor and everything its ``require`` asks
for is on the rendered page (or, for the site-wide checks, on some page):

  terms        strings in the page text
  tables       every figure of these archive tables shown on the page
  current      at least one current figure of this family (or of each family of a list)
  elsewhere    {page: [strings]}: strings in the text of other pages
  snippets     "all": every snippet of archive/code.yaml verbatim (whitespace aside) on some page
  formulas     "all": every formula of archive/code.yaml on some page
  archived     "all": every archived figure on some page (§34: data kept 100 %)
  conclusions  "all": every historical conclusion of reportgen.pages.conclusions on the page, with a verdict
  passages     [ids]: these passages of archive/content_map.yaml are kept (content, not words)
  ratio        a §34 ratio (prose, code, data, conclusion, today) of the content map meets its rule

The content map (archive/content_map.yaml) maps every paragraph, code block, formula, table and
figure of the seed to the page that carries it. ``evaluate_content`` checks each passage against
the rendered pages -- the key facts of a prose paragraph in its page's text, the archived figures
of a data passage in that page's figure index, a code block verbatim, its current equivalent (a
file under docs/snippets/ that tests/test_snippets.py runs) with its label -- and ``ratios``
computes §34's four ratios from the results. A passage judged not worth keeping says
``dropped: why`` and counts against its ratio; a passage the map claims is kept but whose content
is not on its page fails ``--strict`` by name.

``strict_problems`` turns the unmet items into the messages that fail ``--strict``.
"""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path


from reportgen.data import plainfile, seed
from reportgen.errors import ReportError
from reportgen.data.words import W

_TAG = re.compile(r"<[^>]+>")


@dataclass
class Result:
    item: dict
    covered: bool
    reasons: list = field(default_factory=list)


def read_items(archive_dir, code=None):
    """The checklist's rules and items, each item's "all" requirements expanded (against ``code``,
    the seed's snippets, read from the archive when not given)."""
    rules, items = seed.read_items(archive_dir)
    code = seed.read_code(archive_dir) if code is None else code
    return rules, [_resolve(item, code) for item in items]


def _resolve(item, code):
    """Expand the "all" requirements into the concrete things to look for."""
    need = dict(item["require"])
    if need.get("snippets") == "all":
        need["snippets"] = {s["id"]: s["text"] for s in code["snippets"]}
    if need.get("formulas") == "all":
        need["formulas"] = {f["id"]: f["text"] for f in code["formulas"]}
    if need.get("conclusions") == "all":
        from reportgen.pages import conclusions
        need["conclusions"] = conclusions.ids()
    return {**item, "require": need}


def page_text(page_html):
    """Visible text: tags removed without adding spaces (highlighted code is split into spans)."""
    # comments first, as a browser ends them (at the first '-->' or '--!>'): '<!-- > words -->' counted its words
    shown = re.sub(r"<!--.*?(?:--!?>|$)", "", page_html, flags=re.S)
    return re.sub(r"\s+", " ", plainfile.unescape(_TAG.sub("", shown)))


def _squash(text):
    """Text without any whitespace: code compares equal however a page wraps or indents it."""
    return re.sub(r"\s+", "", text)


_VERDICT = re.compile(r'data-conclusion="([^"]+)" data-verdict="([^"]+)"')


def _site_checks(need, texts, numbers, tables):
    """Requirements met anywhere on the site: code, formulas, archived figures."""
    reasons = []
    squashed = None
    for kind, label in (("snippets", W("coverage.site_checks.snippets_label")), ("formulas", W("coverage.site_checks.formulas_label"))):
        wanted = need.get(kind) or {}
        if wanted:
            squashed = squashed if squashed is not None else [_squash(t) for t in texts.values()]
            missing = [k for k, text in wanted.items() if not any(_squash(text) in t for t in squashed)]
            if missing:
                reasons.append(W("coverage.site_checks.missing_on_site", label=label, found=len(wanted) - len(missing), wanted=len(wanted), missing=', '.join(missing)))
    if need.get("archived") == "all":
        missing = archived_missing(numbers, tables)
        if missing:
            reasons.append(W("coverage.site_checks.archived_missing", missing=len(missing)))
    return reasons


def evaluate(items, pages_html, numbers, tables, content=None):
    """One Result per item: covered only when everything it requires is on its page.

    ``content``: (passage results, ratios) of the content map, for ``passages`` and ``ratio``.
    """
    passages, ratio_results = content or ([], {})
    by_passage = {r.item["id"]: r for r in passages}
    by_page = {}
    for entry in numbers:
        by_page.setdefault(entry["page"], []).append(entry)
    texts = {p: page_text(h) for p, h in pages_html.items()}
    results = []
    for item in items:
        page = item["page"]
        html_text = pages_html.get(page)
        reasons = []
        if html_text is None:
            results.append(Result(item, False, [W("coverage.evaluate.no_page", page=page)]))
            continue
        if f'id="{item["anchor"]}"' not in html_text:
            reasons.append(W("coverage.evaluate.no_anchor", anchor=item['anchor']))
        text = texts[page]
        shown = {e["id"] for e in by_page.get(page, [])}
        need = item["require"]
        for term in need.get("terms", []):
            if term not in text:
                reasons.append(W("coverage.evaluate.no_term", term=term))
        for table_id in need.get("tables", []):
            missing = [c.id for c in tables[table_id].figures() if c.id not in shown]
            if missing:
                reasons.append(W("coverage.evaluate.table_missing", table_id=table_id, missing=len(missing)))
        families = need.get("current") or []
        for family in [families] if isinstance(families, str) else families:
            if not any(e["kind"] == "current" and e["record"].startswith(family + "/")
                       for e in by_page.get(page, [])):
                reasons.append(W("coverage.evaluate.no_current", family=family))
        for other, terms in (need.get("elsewhere") or {}).items():
            missing = [t for t in terms if t not in texts.get(other, "")]
            if missing:
                reasons.append(W("coverage.evaluate.elsewhere_missing", other=other, join=W("common.punct.enumeration_comma").join((f'“{t}”' for t in missing))))
        reasons += _site_checks(need, texts, numbers, tables)
        wanted = need.get("conclusions") or []
        if wanted:
            found = dict(_VERDICT.findall(html_text))
            missing = [c for c in wanted if c not in found]
            if missing:
                reasons.append(W("coverage.evaluate.conclusions_missing", found=len(wanted) - len(missing), wanted=len(wanted), missing=', '.join(missing)))
        for pid in need.get("passages") or []:
            res = by_passage.get(pid)
            if res is None:
                reasons.append(W("coverage.evaluate.no_passage", pid=pid))
            elif not res.covered:
                reasons.append(W("coverage.evaluate.passage_not_kept", pid=pid, join=W("common.punct.semicolon").join(res.reasons)))
        if need.get("ratio"):
            ratio = ratio_results.get(need["ratio"])
            if ratio is None:
                reasons.append(W("coverage.evaluate.unknown_ratio", ratio=need['ratio']))
            elif not ratio["met"]:
                reasons.append(W("coverage.evaluate.ratio_below", label=ratio['label'], text=ratio['text'], rule_text=ratio['rule_text'], join=', '.join(ratio['missing'])))
        results.append(Result(item, not reasons, reasons))
    return results


# --- the content map: every passage of the seed --------------------------------------------------

def evaluate_content(content, pages_html, numbers, tables, code, root):
    """One Result per passage of the content map: kept only when its content is on its page."""
    texts = {p: page_text(h) for p, h in pages_html.items()}
    squashed = {p: _squash(t) for p, t in texts.items()}
    shown = {}
    for e in numbers:
        if e["kind"] == "historical":
            shown.setdefault(e["page"], set()).add(e["id"])
    snippets = {s["id"]: s["text"] for s in code.get("snippets", [])}
    formulas = {f["id"]: f["text"] for f in code.get("formulas", [])}
    results = []
    for p in content.get("passages", []):
        if "dropped" in p:
            results.append(Result(p, False, [W("coverage.evaluate_content.dropped", dropped=p['dropped'])]))
            continue
        page, reasons = p["page"], []
        html_text = pages_html.get(page)
        if html_text is None:
            results.append(Result(p, False, [W("coverage.evaluate.no_page", page=page)]))
            continue
        if p.get("anchor") and f'id="{p["anchor"]}"' not in html_text:
            reasons.append(W("coverage.evaluate.no_anchor", anchor=p['anchor']))
        scope = texts[page]
        if p.get("anchor"):     # the key facts must be in the anchored section, not anywhere on the page
            scope = page_text(section_html(html_text, p["anchor"]))
        missing = [f for f in p.get("facts", []) if f not in scope]
        if missing:
            where = f"{page}#{p['anchor']}" if p.get("anchor") else page
            reasons.append(W("coverage.evaluate_content.no_point", where=where, join=W("common.punct.enumeration_comma").join((f'“{f}”' for f in missing))))
        wanted, words = [], []
        for fig in p.get("figures", []):
            if fig in tables:      # a whole table: its figures through the archive, its text cells as text
                wanted += [c.id for c in tables[fig].figures()]
                words += [c.text.replace("`", "") for r in tables[fig].rows for c in r["cells"].values()
                          if c.kind != "figure"]
            else:
                wanted.append(fig)
        missing = [f for f in wanted if f not in shown.get(page, set())]
        if missing:
            reasons.append(W("coverage.evaluate_content.no_figure", page=page, join=', '.join(missing)))
        missing = [w for w in words if w not in texts[page]]
        if missing:
            reasons.append(W("coverage.evaluate_content.no_table_text", page=page, join=W("common.punct.enumeration_comma").join((f'“{w}”' for w in missing))))
        if "snippet" in p and _squash(snippets.get(p["snippet"], "\0")) not in squashed[page]:
            reasons.append(W("coverage.evaluate_content.no_snippet", page=page, snippet=p['snippet']))
        if "formula" in p and _squash(formulas.get(p["formula"], "\0")) not in squashed[page]:
            reasons.append(W("coverage.evaluate_content.no_formula", page=page, formula=p['formula']))
        for cid in [p["conclusion"]] if isinstance(p.get("conclusion"), str) else p.get("conclusion", []):
            if f'data-conclusion="{cid}"' not in html_text:
                reasons.append(W("coverage.evaluate_content.no_conclusion", page=page, cid=cid))
        results.append(Result(p, not reasons, reasons))
    return results


_HEADING = re.compile(r"<h([1-6])\b[^>]*>")


def section_html(page_html, anchor):
    """The HTML of the section an anchored heading opens, up to the next heading of its level or
    above (an anchor that is not a heading: from it to the next heading). Empty when absent."""
    start = page_html.find(f'id="{anchor}"')
    if start < 0:
        return ""
    opening = page_html.rfind("<", 0, start)
    match = _HEADING.match(page_html, opening)
    level = int(match.group(1)) if match else 6
    for nxt in _HEADING.finditer(page_html, start):
        if int(nxt.group(1)) <= level:
            return page_html[opening:nxt.start()]
    return page_html[opening:]


def evaluate_today(content, pages_html, root):
    """Code passages whose current equivalent (the very file the tests run) is on the page, labelled."""
    out = {}
    for p in content.get("passages", []):
        if p.get("kind") != "code" or "dropped" in p:
            continue
        reasons = []
        try:
            body = _squash(seed.snippet_file(root, p["today"]))
        except OSError as exc:
            out[p["id"]] = [W("coverage.evaluate_today.unreadable", today=p['today'], exc=exc)]
            continue
        block = _today_block(pages_html.get(p["page"], ""), p["today"])
        if block is None or body not in _squash(page_text(block)):
            reasons.append(W("coverage.evaluate_today.not_whole", page=p['page'], today=p['today']))
        elif not any(label in page_text(block) for label in seed.LABELS):
            reasons.append(W("coverage.evaluate_today.not_labelled", page=p['page'], today=p['today']))
        out[p["id"]] = reasons
    return out


def _today_block(page_html, rel):
    """The HTML of the block that shows one current-equivalent file (marked data-today="path")."""
    start = page_html.find(f'data-today="{rel}"')
    if start < 0:
        return None
    end = page_html.find("<!-- /today -->", start)
    return page_html[start:end if end > 0 else None]


def ratios(content, results, today=None):
    """§34's ratios: kept / all passages of each kind (formulas and data together), with the shortfall."""
    rules = content.get("rules", {})
    groups = {"prose": ("prose",), "code": ("code",), "data": ("formula", "data"), "conclusion": ("conclusion",)}
    out = {}
    for key, kinds in groups.items():
        mine = [r for r in results if r.item["kind"] in kinds]
        kept = [r for r in mine if r.covered]
        out[key] = _ratio(key, rules.get(key, {}), len(kept), len(mine),
                          [r.item["id"] for r in mine if not r.covered])
    if today is not None:
        done = [pid for pid, reasons in today.items() if not reasons]
        out["today"] = _ratio("today", rules.get("today", {}), len(done), len(today),
                              [pid for pid, reasons in today.items() if reasons])
    return out


def _ratio(key, rule, kept, total, missing):
    value = kept / total if total else 1.0
    low, high = rule.get("min", 0.0), rule.get("max")
    met = value + 1e-12 >= low
    rule_text = f"≥ {low:.0%}" if high is None else W("coverage.ratio.range", low=low, high=high)
    return {"key": key, "label": rule.get("label", key), "rule": rule.get("rule", ""), "rule_text": rule_text,
            "kept": kept, "total": total, "value": value, "text": f"{kept}/{total} = {value:.1%}", "met": met,
            "above_max": high is not None and value > high + 1e-12, "missing": missing}


def content_problems(results, today, ratio_results):
    """Rows for coverage.json: a passage the map keeps but the pages lack, a missing equivalent, a low ratio."""
    rows = []
    for r in results:
        if "dropped" in r.item:
            continue
        rows.append({"id": r.item["id"], "page": r.item["page"], "anchor": r.item.get("anchor", ""),
                     "covered": r.covered, "reasons": r.reasons})
    for pid, reasons in today.items():
        if reasons:
            page = next(r.item["page"] for r in results if r.item["id"] == pid)
            rows.append({"id": f"{pid}/today", "page": page, "anchor": "", "covered": False, "reasons": reasons})
    for key, ratio in ratio_results.items():
        rows.append({"id": f"ratio.{key}", "page": "coverage.md", "anchor": "ratios", "covered": ratio["met"],
                     "reasons": [] if ratio["met"] else
                     [W("coverage.content_problems.ratio_below", label=ratio['label'], text=ratio['text'], rule_text=ratio['rule_text'], join=', '.join(ratio['missing']))]})
    return rows


def archived_missing(numbers, tables):
    """Archived figures that appear on no page (seed §34: data kept 100%)."""
    shown = {e["id"] for e in numbers if e["kind"] == "historical"}
    return [c.id for t in tables.values() for c in t.figures() if c.id not in shown]


def strict_problems(coverage_json):
    """`--strict`: one message per unmet item of a built site's coverage.json."""
    from reportgen.publish.sitecheck import read_json
    path = Path(coverage_json)
    try:
        results = read_json(path)
    except ReportError as exc:
        return [f"{path}: cannot read the coverage results: {exc.problems[0].removeprefix(f'{path}: ')}"]
    return [f"{path}: item {r['id']!r} ({r['page']}#{r['anchor']}) not covered: {'; '.join(r['reasons'])}"
            for r in results if not r["covered"]]
