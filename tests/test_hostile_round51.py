"""The fifty-first round of the hostile corpus (issue #29).

Left from round 50: the paragraph bound on the characters Markdown nests on held, but an unclosed tag
start is scanned for to the page's end, so 20 000 paragraphs of '<a ' (each one within the bound, and
two nested Jinja loops over a placeholder make them from 90 bytes) took 39 s, four times that for twice
as many.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("docs_page_nesting",)}


def test_a_docs_page_holds_at_most_max_page_marks_of_one_character():
    from reportgen.publish import pagecontent, sandbox
    said = pagecontent.source_problem("docs/x.md", "intro\n\n" + "<a \n\n" * 2001)
    assert said and said.startswith("docs/x.md: 2001 '<'") and _expect("docs_page_nesting") in said
    assert pagecontent.source_problem("docs/x.md", "intro\n\n" + "<a \n\n" * 100) is None
    env = sandbox.sandbox()   # the page as rendered: two loops over a placeholder's text
    tree = env.parse("x\n\n{% for a in X %}{% for b in X %}<a \n\n{% endfor %}{% endfor %}\n")
    out = sandbox.render(env, tree, {"X": "a" * 100}, "docs/x.md")
    said = pagecontent.source_problem("docs/x.md (as rendered)", out)
    assert said and "10000 '<' in the page" in said
