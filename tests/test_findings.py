"""Each topic page reads as an article: its first screen (1280×800) holds the finding (observation,
explanation, recommendation, computed from the records) and the page's main chart. Screenshots of
those first screens go to tests/output/findings/ (ignored by git) for review."""
import os

import pytest
from helpers import wait_until
from test_browser import browser, server  # noqa: F401  (fixtures; the module skips without chromium)

pytestmark = pytest.mark.browser
TOPICS = ("gemm", "gemm-ladder", "graph", "int8", "e2e")
SCREEN = {"width": 1280, "height": 800}
SHOTS = os.path.join(os.path.dirname(__file__), "output", "findings")

_BOXES = """() => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
                     return {top: r.top, bottom: r.bottom, height: r.height}; };
  const finding = document.querySelector('article .finding');
  return {finding: box(finding), chart: box(document.querySelector('article div.vchart')),
          parts: finding ? [...finding.querySelectorAll('p')].map(p => p.firstElementChild ? p.firstElementChild.tagName : '') : [],
          figures: finding ? finding.querySelectorAll('a.num.cur').length : 0};
}"""


@pytest.mark.parametrize("stem", TOPICS)
def test_first_screen_holds_finding_and_main_chart(built_site, server, browser, stem):  # noqa: F811
    os.makedirs(SHOTS, exist_ok=True)
    context = browser.new_context(viewport=SCREEN)
    pg = context.new_page()
    pg.goto(f"{server}/{stem}.html", wait_until="networkidle")
    wait_until(pg, "[...document.querySelectorAll('div.vchart')].every(d => d.dataset.rendered === '1')")
    pg.screenshot(path=os.path.join(SHOTS, f"{stem}-1280x800.png"))
    boxes = pg.evaluate(_BOXES)
    context.close()
    finding, chart = boxes["finding"], boxes["chart"]
    assert finding is not None, f"{stem}: no finding block"
    # three paragraphs, each led by its bold label (observation, explanation, recommendation), with
    # figures linked to their records
    assert boxes["parts"] == ["STRONG"] * 3, boxes["parts"]
    assert boxes["figures"] >= 2
    assert finding["bottom"] <= SCREEN["height"], f"{stem}: the finding ends below the first screen"
    assert chart is not None and chart["top"] >= finding["bottom"], f"{stem}: no main chart after the finding"
    assert chart["bottom"] <= SCREEN["height"], f"{stem}: the main chart is cut by the first screen ({chart})"


_HOME = """() => {
  const h = document.getElementById('answers');
  const box = e => e.getBoundingClientRect().bottom;
  let card = h.nextElementSibling, list = card.nextElementSibling;
  while (list && list.tagName !== 'UL') list = list.nextElementSibling;
  return {card: card.innerText, card_bottom: box(card), machine: card.querySelector('code') ? card.querySelector('code').innerText : '',
          answers: list ? [...list.children].map(li => ({bottom: box(li), figures: li.querySelectorAll('a.num.cur').length,
                                                          text: li.innerText.slice(0, 40)})) : []};
}"""


def test_home_first_screen_answers_the_three_questions_on_one_machine(built_site, server, browser):  # noqa: F811
    """The reader's three questions (GEMM against the library, TVM against ONNX Runtime end to end,
    INT8 against FP32) are answered with linked figures on the first screen (1280x800), under a card
    naming the measuring machine: id, CPU, cores, ISA, memory."""
    import json
    os.makedirs(SHOTS, exist_ok=True)
    context = browser.new_context(viewport=SCREEN)
    pg = context.new_page()
    pg.goto(f"{server}/index.html", wait_until="load")
    pg.screenshot(path=os.path.join(SHOTS, "index-1280x800.png"))
    home = pg.evaluate(_HOME)
    context.close()
    numbers = json.loads((built_site / "site" / "numbers.json").read_text(encoding="utf-8"))
    machines = {e.get("machine") for e in numbers if e.get("kind") == "current"} - {None}
    assert home["machine"] in machines, home["card"]
    assert "GiB" in home["card"] and ("avx" in home["card"] or "sse" in home["card"]), home["card"]
    assert len(home["answers"]) == 3, home["answers"]
    for answer in home["answers"]:
        assert answer["figures"] >= 1, answer
        assert answer["bottom"] <= SCREEN["height"], f"below the first screen: {answer}"
