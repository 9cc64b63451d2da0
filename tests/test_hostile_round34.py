"""The thirty-fourth round of the hostile corpus (issue #29), site side.

Since round 31 a project stylesheet may use only the properties and values of an allow-list
(sitecheck.CSS_PROPERTIES, _value_problem, _KEYWORDS, _box_problem).  The two refusal lists that came
before it (CSS_TEXT_RULES, _CSS_VALUES) are gone in this round; every rule they refused is shown here
to be refused by the allow-list alone.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest

from reportgen.publish import sitecheck

MUTATIONS = {}
SPECIAL = {}


@pytest.mark.parametrize("css", [
    "p{font-size:3px}", "p{font-size:.3em}", "p{font-size:0}", "p{font-size:30%}", "p{font-size:0.0px}",
    "p{font-size:0px !important}", "p{margin:0 -1em}", "p{margin-left:-2px}", "p{margin:-0.5em}", "p{padding:-1px}",
    "p{display:contents}", "p{display:flex}", "p{display:inline-grid}", "p{display:ruby}",
    "p{color:transparent}", "p{color:rgba(0,0,0,0)}", "p{color:#0000}", "p{color:#00000000}",
    "p{unicode-bidi:bidi-override}", "p{direction:rtl}", "p{order:2}", "p{float:right}",
    "p{flex-direction:row-reverse}", "p{grid-row:2}", "p{grid-template-areas:none}", "p{quotes:none}",
    "@counter-style x{system:cyclic}", "p{visibility:hidden}", "p::after{content:'1'}",
    "p::after{content:attr(x)}", "p{text-indent:-9em}", "@media print{p{direction:rtl}}",
])
def test_what_the_old_refusal_lists_caught_the_allow_list_refuses(tmp_path, css):
    sheet = tmp_path / "study.css"
    sheet.write_text(css + "\n", encoding="utf-8")
    found = sitecheck.stylesheet_problems(sheet, rules=True)
    assert len(found) == 1 and str(sheet) in found[0] and "CSS_PROPERTIES" in found[0], (css, found)

