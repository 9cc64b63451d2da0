"""The credibility page: the hostile corpus, one row per class of input and how each ended."""
from collections import Counter

from reportgen.data.corpus import OUTCOMES, counts, read
from reportgen.render.cells import text as _esc
from reportgen.render.markdown import markdown

CLASS_ZH = {"injection": "脚本注入（记录、日志、产物中的字符串）", "paths": "仓库外的文件（符号链接、..）",
            "figures": "错误的数字（负延迟、校验不符、事后改动、缺失的运行）", "history": "历史数据（归档表格的封存）",
            "processes": "进程（复测被杀、被终止、遗留的临时目录）", "concurrency": "并发与破坏性选项（--site-dir）",
            "cli": "命令行故障（端口、子目录、只读或缺失的 results/）"}


def hostile_table(root):
    """One row per class of the corpus: how many inputs, and how each ended."""
    cases = read(root)
    rows = []
    for cls in dict.fromkeys(c["class"] for c in cases):
        mine = Counter(c["outcome"] for c in cases if c["class"] == cls)
        rows.append([_esc(CLASS_ZH.get(cls, cls)), str(sum(mine.values()))]
                    + [str(mine[o]) for o in OUTCOMES])
    return markdown(["类别", "尝试", "拒绝（报错并指明文件）", "按纯文本显示", "故障已清理并提示"], rows)


def names(site):
    """The placeholders this module gives the page templates."""
    d = site.data
    return {
        "hostile": lambda: counts(d.archive_dir.parent),
        "hostile_table": lambda: hostile_table(d.archive_dir.parent),
    }
