"""The hostile corpus (tests/data/hostile/cases.yaml), counted for the credibility page.

The tests run every case of that file and assert its outcome; the page reports the same
file, so the count on the site is the count the test suite enforces.
"""
from collections import Counter
from pathlib import Path

import yaml

from .errors import ReportError
from .tables import _esc, markdown

PATH = Path("tests") / "data" / "hostile" / "cases.yaml"
OUTCOMES = ("refused", "text", "handled")
"""refused: an error naming the file; text: shown as inert text; handled: a fault cleaned up."""
CLASS_ZH = {"injection": "脚本注入（记录、日志、产物中的字符串）", "paths": "仓库外的文件（符号链接、..）",
            "figures": "错误的数字（负延迟、校验不符、事后改动、缺失的运行）", "history": "历史数据（归档表格的封存）",
            "processes": "进程（复测被杀、被终止、遗留的临时目录）", "concurrency": "并发与破坏性选项（--site-dir）",
            "cli": "命令行故障（端口、子目录、只读或缺失的 results/）"}


def read(root):
    path = Path(root) / PATH
    try:
        cases = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: cannot read the hostile corpus: {exc}") from exc
    return cases


def counts(root):
    """tried / refused / text / handled / published (published: cases with no safe outcome)."""
    cases = read(root)
    by = Counter(c.get("outcome") for c in cases)
    return {"tried": str(len(cases)), **{o: str(by[o]) for o in OUTCOMES},
            "published": str(len(cases) - sum(by[o] for o in OUTCOMES)), "file": PATH.as_posix()}


def table(root):
    """One row per class of the corpus: how many inputs, and how each ended."""
    cases = read(root)
    rows = []
    for cls in dict.fromkeys(c["class"] for c in cases):
        mine = Counter(c["outcome"] for c in cases if c["class"] == cls)
        rows.append([_esc(CLASS_ZH.get(cls, cls)), str(sum(mine.values()))]
                    + [str(mine[o]) for o in OUTCOMES])
    return markdown(["类别", "尝试", "拒绝（报错并指明文件）", "按纯文本显示", "故障已清理并提示"], rows)
