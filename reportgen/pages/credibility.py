"""The credibility page: the hostile corpus, one row per class of input and how each ended."""
from collections import Counter

from reportgen.data.corpus import OUTCOMES, counts, read
from reportgen.render.cells import text as _esc
from reportgen.render.markdown import markdown
from reportgen.data.words import W

CLASS_ZH = {"injection": W("credibility.class_zh.injection"), "paths": W("credibility.class_zh.paths"),
            "figures": W("credibility.class_zh.figures"), "history": W("credibility.class_zh.history"),
            "processes": W("credibility.class_zh.processes"), "concurrency": W("credibility.class_zh.concurrency"),
            "cli": W("credibility.class_zh.cli"), "limits": W("credibility.class_zh.limits"),
            "order": W("credibility.class_zh.order"), "artifacts": W("credibility.class_zh.artifacts"),
            "campaigns": W("credibility.class_zh.campaigns"), "builds": W("credibility.class_zh.builds")}


def hostile_table(root):
    """One row per class of the corpus: how many inputs, and how each ended."""
    cases = read(root)
    rows = []
    for cls in dict.fromkeys(c["class"] for c in cases):
        mine = Counter(c["outcome"] for c in cases if c["class"] == cls)
        rows.append([_esc(CLASS_ZH.get(cls, cls)), str(sum(mine.values()))]
                    + [str(mine[o]) for o in OUTCOMES])
    return markdown([W("credibility.hostile_table.head_class"), W("credibility.hostile_table.head_attempt"), W("credibility.hostile_table.head_rejected"), W("credibility.hostile_table.head_as_text"), W("credibility.hostile_table.head_cleaned")], rows)


def names(site):
    """The placeholders this module gives the page templates."""
    d = site.data
    return {
        "hostile": lambda: counts(d.archive_dir.parent),
        "hostile_table": lambda: hostile_table(d.archive_dir.parent),
    }
