"""The write-up pages in the built site: they load offline in Chromium, and their figures are linked."""
import pytest
from test_browser import browser, page, server  # noqa: F401  (fixtures; the module skips without chromium)

pytestmark = pytest.mark.browser
WRITEUP = ("compiler.html", "migration.html", "service.html", "pitfalls.html", "platforms.html",
           "credibility.html", "roadmap.html", "retrospective.html")


@pytest.mark.parametrize("path", WRITEUP)
def test_writeup_page_loads_offline_without_errors(server, page, path):  # noqa: F811
    page.goto(f"{server}/{path}", wait_until="networkidle")
    assert page.outside == [] and page.errors == []
    assert page.locator("h1").count() == 1


def test_a_conclusion_figure_leads_to_its_record(server, page):  # noqa: F811
    page.goto(f"{server}/retrospective.html", wait_until="networkidle")
    assert page.locator("[data-conclusion]").count() >= 10
    link = page.locator("#conclusions ~ table a.num.cur, table a.num.cur").first
    anchor = link.get_attribute("href").split("#", 1)[1]
    link.click()
    page.wait_for_load_state("networkidle")
    assert page.locator(f"[id='{anchor}']").count() == 1
