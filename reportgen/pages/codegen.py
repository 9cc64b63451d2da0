"""Facts for the code-generation chapter: what the compiled code contains, every count a figure.

The instruction counts come from the assembly each gemm_tvm stage generated (the harness
counts them into ``extra.codegen``); the Hello Relax record shows one module compiled and run.
"""
from reportgen.data import claims, merge
from study import cases
from reportgen.render.cells import text as _esc
from reportgen.data.words import W

STAGES = ("baseline", "vectorization", "autotuned")   # no SIMD, hand-vectorized, searched


def _count(book, cur, key, value):
    return book.current(f"{cur.record['id']}#{key}", str(value), "instructions", cur)


def _pick(current, stage):
    """The stage's record at the largest shape and thread count that kept its assembly counts (held by a
    rule: claims.compiled)."""
    rows = [c for c in merge.family(current, "gemm_tvm").values()
            if c.record["case"].get("impl") == "tvm" and c.record["case"].get("stage") == stage
            and c.ok and claims.compiled(c.record, "codegen")]
    return max(rows, key=lambda c: (c.record["case"]["m"], c.record["case"]["threads"]), default=None)


def instruction_facts(book, current, env):
    """One sentence per stage: scalar and vector FMA counted in its assembly, widest register."""
    parts = []
    for stage in STAGES:
        cur = _pick(current, stage)
        if cur is None:
            continue
        case, code = cur.record["case"], claims.compiled(cur.record, "codegen")
        packed = code.get("fma_packed", {})
        vector = W("common.punct.enumeration_comma").join(W("codegen.instruction_facts.reg_count", count=_count(book, cur, 'fma_' + reg, n), reg=_esc(reg)) for reg, n in packed.items() if n)
        parts.append(W("codegen.instruction_facts.stage_scalar", stage=_esc(stage), m=case['m'], n=case['n'], k=case['k'], threads=case['threads'], count=_count(book, cur, 'fma_scalar', code.get('fma_scalar', 0)))
                     + (W("codegen.instruction_facts.vector", vector=vector) if vector else W("codegen.instruction_facts.no_vector"))
                     + W("codegen.instruction_facts.widest_register", register=str(code.get('widest_register', '?')).replace('`', '')))
    if not parts:
        return W("codegen.instruction_facts.text")
    flags = W("common.punct.enumeration_comma").join(f"`{f.replace('`', '')}`" for f in (env or {}).get("simd_flags", [])) or W("codegen.instruction_facts.not_recorded")
    return W("common.punct.semicolon").join(parts) + W("codegen.instruction_facts.simd_flags", flags=flags)


def hello_facts(book, current):
    """The smallest module compiled for this machine and run: output, dtype, round trip."""
    cur = merge.family(current, "graph").get(cases.case_id("graph", case="hello"))
    if cur is None or not cur.ok:
        return book.failed(cur) if cur is not None else W("codegen.hello_facts.none")
    extra = cur.record["extra"]
    output = book.current(f"{cur.record['id']}#output", str(extra["output"]), "value", cur)
    return (W("codegen.hello_facts.text", target=extra['target'].replace('`', ''), input=cur.record['case']['input'], output=output, output_dtype=extra['output_dtype'].replace('`', ''), script_roundtrip=W("codegen.hello_facts.word_yes") if extra['script_roundtrip'] else W("codegen.hello_facts.word_no")))


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "codegen_instructions": lambda: instruction_facts(b, d.current, d.env),
        "codegen_hello": lambda: hello_facts(b, d.current),
    }
