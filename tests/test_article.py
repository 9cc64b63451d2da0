"""The site reads as one article: chapters in the seed's order, a code-generation chapter with evidence."""
import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _nav_pages(nav):
    for item in nav:
        for value in item.values():
            if isinstance(value, list):
                yield from _nav_pages(value)
            else:
                yield value


def test_nav_follows_the_article_order():
    """基线 → 图 → 算子 → 代码 → 量化 → 端到端 → 服务 → 复盘; migration is not between 图 and 算子."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    pages = list(_nav_pages(config["nav"]))
    order = ["index.md", "method.md", "environment.md", "gemm.md", "graph.md", "gemm-ladder.md", "codegen.md",
             "int8.md", "e2e.md", "service.md", "retrospective.md"]
    assert [p for p in pages if p in order] == order
    assert pages.index("migration.md") > pages.index("codegen.md")


def test_codegen_chapter_shows_traced_evidence(built_site):
    html = (built_site / "site" / "codegen.html").read_text(encoding="utf-8")
    for anchor in ("objects", "apis", "targets", "evidence"):
        assert f'id="{anchor}"' in html
    for term in ("IRModule", "PrimFunc", "tvm.runtime.Module", "tvm.compile", "relay.build", "BYOC", "vfmadd"):
        assert term in html
    numbers = json.loads((built_site / "site" / "numbers.json").read_text(encoding="utf-8"))
    here = {e["record"].split("/")[0] for e in numbers if e["page"] == "codegen.md" and e["kind"] == "current"}
    assert {"gemm_tvm", "graph"} <= here       # instruction counts and Hello Relax, each linked to its record
    assert re.search(r'class="num cur"[^>]*data-num="gemm_tvm/[^"]*#fma_scalar"', html)
