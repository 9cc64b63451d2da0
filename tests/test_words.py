"""Words live in docs/words/*.yaml, not in Python: a test counts the CJK characters left in code.

Every Chinese text the code puts on a page is looked up by key (``W("module.group.item")``,
reportgen/data/words.py) in ``docs/words/<module>.yaml``, so a writer changes the prose without
touching Python; words about a fact a record carries are filed under that fact
(``W_for("graph.pass_map.note", relay_pass)``), so the experiments write keys, never sentences.
The count covers every ``.py`` file under reportgen/ and experiments/ (string literals, comments
and docstrings alike); only the text of ``raise`` statements (error messages) is not counted, and
tests/ (fixtures) is not scanned.

ALLOWANCE was the ratchet for the modules not converted yet (each at most the CJK characters it
held, the numbers only going down to zero); every module is converted now and it stays empty: a
module that is not listed must hold none, so a Chinese string added to any module fails here.
Never add an entry: move the words out.
"""
import ast
import json
import re
from pathlib import Path

import pytest
import yaml

from reportgen.data import words
from reportgen.errors import ReportError

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
ALLOWANCE = {}


def _python_files():
    for package in ("reportgen", "experiments"):
        yield from sorted((ROOT / package).rglob("*.py"))


def cjk_count(path):
    """CJK characters in a Python file, those in the text of raise statements (error messages) aside."""
    source = path.read_text(encoding="utf-8")
    in_errors = sum(len(CJK.findall(n.value))
                    for r in ast.walk(ast.parse(source)) if isinstance(r, ast.Raise)
                    for n in ast.walk(r) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return len(CJK.findall(source)) - in_errors


def test_no_cjk_in_python_beyond_the_allowance():
    wrong = []
    for path in _python_files():
        rel = str(path.relative_to(ROOT))
        count, allowed = cjk_count(path), ALLOWANCE.get(rel, 0)
        if count > allowed:
            wrong.append(f"{rel}: {count} CJK characters, allowed {allowed}: put the words in "
                         f"docs/words/ and look them up with reportgen.data.words.W")
        elif count < allowed:
            wrong.append(f"{rel}: {count} CJK characters now: lower its ALLOWANCE from {allowed} to {count}")
    missing = [rel for rel in ALLOWANCE if not (ROOT / rel).exists()]
    wrong += [f"{rel}: in ALLOWANCE but gone: remove the entry" for rel in missing]
    assert not wrong, "\n".join(wrong)


def _calls_in_code(name):
    """(file, line, first argument) of every name("literal") call under reportgen/ and experiments/."""
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
                    and node.args and isinstance(node.args[0], ast.Constant)):
                yield path.relative_to(ROOT), node.lineno, node.args[0].value


def _keys_in_code():
    """(file, line, key) of every W("literal key") call."""
    return _calls_in_code("W")


def _groups_in_code():
    """(file, line, group) of every W_for("literal group", fact...) call: the group's texts are keyed by facts."""
    return _calls_in_code("W_for")


def _keys_in_catalogs():
    for path in sorted(words.WORDS.glob("*.yaml")):
        yield from (key for key, _text in _leaves(yaml.safe_load(path.read_text(encoding="utf-8")) or {}, path.stem))


def test_every_key_the_code_asks_for_has_a_text():
    wrong = []
    for rel, line, key in _keys_in_code():
        try:
            # a number where the text formats one ({n:.2f}), else a word: two zeros side by side read as one number
            words.W(key, **{m.group(1): 0 if m.group(2) else "x" for m in words.PLACEHOLDER.finditer(_raw(key))})
        except ReportError as e:
            wrong.append(f"{rel}:{line}: {e}")
    for rel, line, group in _groups_in_code():
        try:
            node = words._walk(group, group.split(".")[1:])[1]
        except ReportError as e:
            wrong.append(f"{rel}:{line}: {e}")
            continue
        if not isinstance(node, dict) or not node:
            wrong.append(f"{rel}:{line}: '{group}' must be a mapping of facts to texts")
            continue
        wrong += [f"{rel}:{line}: '{key}' is not a text" for key, text in _leaves(node, group)
                  if not isinstance(text, str) or not text]
    assert not wrong, "\n".join(wrong)


def _leaves(node, prefix):
    """(dotted key, value) of every text under a mapping."""
    for k, v in node.items():
        if isinstance(v, dict):
            yield from _leaves(v, f"{prefix}.{k}")
        else:
            yield f"{prefix}.{k}", v


def _raw(key):
    name, *parts = key.split(".")
    node = words.catalog(name)[1]
    for part in parts:
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, str) else ""


def test_every_text_in_the_catalogs_is_used():
    used = {key for _rel, _line, key in _keys_in_code()}
    groups = tuple(f"{group}." for _rel, _line, group in _groups_in_code())
    unused = [key for key in _keys_in_catalogs() if key not in used and not key.startswith(groups)]
    assert not unused, "texts in docs/words/ that no code asks for:\n" + "\n".join(unused)


def test_words_are_not_published():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^exclude_docs: \|\n(?:  .*\n)*  /words/$", config, re.M), \
        "mkdocs.yml: exclude_docs must list /words/ (the words files are read by the build, not pages)"


def test_lookup_fills_placeholders_as_the_f_string_did(tmp_path, monkeypatch):
    (tmp_path / "t.yaml").write_text("g:\n  a: 'x {ratio:.3g} y {name} {{ kept }} {a/b/c}'\n  plain: '{not a placeholder}'\n",
                                     encoding="utf-8")
    monkeypatch.setattr(words, "WORDS", tmp_path)
    monkeypatch.setattr(words, "ROOT", tmp_path.parent)
    ratio, name = 1.23456, "<code>x</code>"   # markup the code builds (words.BUILT_TAGS)
    assert words.W("t.g.a", ratio=ratio, name=name) == f"x {ratio:.3g} y {name} {{{{ kept }}}} {{a/b/c}}"
    assert words.W("t.g.plain") == "{not a placeholder}"
    # a value (record text, already escaped) is inserted as it is, never read as a template
    assert words.W("t.g.a", ratio=1, name="{ratio} {name}") == "x 1 y {ratio} {name} {{ kept }} {a/b/c}"


def test_a_missing_key_or_value_is_an_error_naming_file_and_key(tmp_path, monkeypatch):
    (tmp_path / "t.yaml").write_text("g:\n  a: 'x {ratio}'\n", encoding="utf-8")
    monkeypatch.setattr(words, "WORDS", tmp_path)
    monkeypatch.setattr(words, "ROOT", tmp_path.parent)
    with pytest.raises(ReportError, match=r"t\.yaml: no text for the key 't\.g\.b'"):
        words.W("t.g.b")
    with pytest.raises(ReportError, match=r"t\.yaml: the text of 't\.g\.a' has the placeholder \{ratio\}"):
        words.W("t.g.a", other=1)
    with pytest.raises(ReportError, match=r"nope\.yaml: no such words file"):
        words.W("nope.x")


def test_words_for_a_fact_take_the_fact_whole(tmp_path, monkeypatch):
    (tmp_path / "t.yaml").write_text("g:\n  note:\n    relay.expr.var / relay.var: 'x {n}'\n"
                                     "    '{n}': plain\n  step:\n    p1:\n      Fold: a\n", encoding="utf-8")
    monkeypatch.setattr(words, "WORDS", tmp_path)
    monkeypatch.setattr(words, "ROOT", tmp_path.parent)
    assert words.W_for("t.g.note", "relay.expr.var / relay.var", n=3) == "x 3"
    assert words.W_for("t.g.step", "p1", "Fold") == "a"
    # a record string is only a key: one that looks like a placeholder is looked up, not filled
    assert words.W_for("t.g.note", "{n}", n=3) == "plain"
    with pytest.raises(ReportError, match=r"t\.yaml: no text for 'relay' in 't\.g\.note'"):
        words.W_for("t.g.note", "relay")
    with pytest.raises(ReportError, match=r"t\.yaml: no text for 'Other' in 't\.g\.step\[p1\]'"):
        words.W_for("t.g.step", "p1", "Other")
    with pytest.raises(ReportError, match=r"t\.yaml: no text for None in 't\.g\.note'"):
        words.W_for("t.g.note", None)
    with pytest.raises(ReportError, match=r"t\.yaml: the key 't\.g\.step\[p1\]' is not a text"):
        words.W_for("t.g.step", "p1")


def _committed_records():
    for path in sorted((ROOT / "results" / "runs").glob("*/records.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            yield path.parent.name, json.loads(line)


def test_every_fact_in_committed_records_has_its_words():
    """The pages say what a record's facts mean from the words files, for old records as for new:
    every pass, API, kernel and float-kept operator a committed record names has its text."""
    from reportgen.data.archive import read_archive
    from reportgen.pages import gemm, graph, int8
    passes = read_archive(ROOT / "archive")[0]["s24_passes"]
    asked, wrong = 0, []
    for run, rec in _committed_records():
        case, extra, family = rec["case"], rec.get("extra") or {}, rec["id"].split("/")[0]
        looks = []
        if family == "graph" and "pipeline" in case:
            looks.append(lambda: graph.step_words(case))
        if family == "graph" and "relay_pass" in case:
            looks += [lambda: graph.pass_note(case), lambda: graph.pass_group(passes, case["relay_pass"])]
        if family == "graph" and "old_api" in case:
            looks.append(lambda: graph.migration_note(case))
        if family == "gemm_hand":
            looks.append(lambda: gemm.hand_optimizations(case["kernel"]))
        for op in (extra.get("rewrite") or {}).get("float_ops", []):
            looks.append(lambda op=op: int8.float_reason(op))
        for look in looks:
            asked += 1
            try:
                look()
            except ReportError as e:
                wrong.append(f"{run} {rec['id']}: {e}")
    assert asked and not wrong, "\n".join(wrong)


def test_a_float_kept_operator_is_explained_by_the_code_its_record_carries():
    from reportgen.pages import int8
    coded = {"op": "concat", "var": "lv", "input": "float", "reason_code": "mean_truncates"}
    assert int8.float_reason(coded) == words.W_for("int8.float_ops.reason", "mean_truncates")
    # a record from before the codes: the sentence it carries is never shown, its operator decides
    old = {"op": "concat", "var": "lv", "input": "float", "reason": "<b>untrusted</b>"}
    assert int8.float_reason(old) == words.W_for("int8.float_ops.reason", "no_integer_op")
    with pytest.raises(ReportError, match=r"int8\.yaml: no text for 'nope' in 'int8\.float_ops\.reason'"):
        int8.float_reason({"op": "mean", "reason_code": "nope"})


# A key or placeholder says what its text or value is (``head_peak_gflops``, ``{ort_ms}``), never where it
# stands (``s3``, ``head_2``, ``text_2``, ``"4"``, ``{ms2}``): a positional name breaks silently when a text
# is added or moved, and a writer cannot tell which column or sentence it is. A name whose last part ends
# in a digit is refused unless that part is one of these semantic names.
SEMANTIC_DIGITS = {"fp32", "int8", "p50", "p99", "sha256", "avx2", "avx512", "top1", "top5"}  # metric names: top-1 agreement, top-5 overlap


def _positional(name):
    name = str(name)
    last = name.split("_")[-1]
    return name.isdigit() or (bool(re.search(r"\d$", last)) and last not in SEMANTIC_DIGITS)


def _numbered_names(catalog, stem, fact_groups=()):
    """'file: key' for every positional key and numbered placeholder in one parsed catalog. Keys under a
    W_for group are facts a record carries (a kernel name like MMult_4x4_10), refused only when all digits."""
    wrong = []
    for key, text in _all_nodes(catalog, stem):
        leaf = key.rsplit(".", 1)[1]
        is_fact = key.startswith(tuple(f"{g}." for g in fact_groups))
        if (leaf.isdigit() if is_fact else _positional(leaf)):
            wrong.append(f"{stem}.yaml: key '{key}' is numbered by position: name it by what it says")
        if isinstance(text, str):
            wrong += [f"{stem}.yaml: key '{key}' has the numbered placeholder {{{m.group(1)}}}: name it by its value"
                      for m in words.PLACEHOLDER.finditer(text) if _positional(m.group(1))]
    return wrong


def _all_nodes(node, prefix):
    """(dotted key, value) of every mapping entry, groups included."""
    for k, v in node.items():
        yield f"{prefix}.{k}", v
        if isinstance(v, dict):
            yield from _all_nodes(v, f"{prefix}.{k}")


def test_no_key_or_placeholder_is_numbered_by_position():
    groups = {group for _rel, _line, group in _groups_in_code()}
    wrong = []
    for path in sorted(words.WORDS.glob("*.yaml")):
        wrong += _numbered_names(yaml.safe_load(path.read_text(encoding="utf-8")) or {}, path.stem, groups)
    assert not wrong, "\n".join(wrong)


def test_the_numbered_name_check_finds_what_it_refuses():
    catalog = {"table": {"s1": "a", "head_2": "b", "text_2": "c", "head": {"3": "d"}, "row": "{ms2} {ort_ms}",
                         "head_p50": "e", "vs_fp32": "{int8} {sha256}"},
               "s08": {"head_model": "f"},
               "kernels": {"MMult_4x4_10": "g", "7": "h"}}
    wrong = _numbered_names(catalog, "t", fact_groups={"t.kernels"})
    assert wrong == ["t.yaml: key 't.table.s1' is numbered by position: name it by what it says",
                     "t.yaml: key 't.table.head_2' is numbered by position: name it by what it says",
                     "t.yaml: key 't.table.text_2' is numbered by position: name it by what it says",
                     "t.yaml: key 't.table.head.3' is numbered by position: name it by what it says",
                     "t.yaml: key 't.table.row' has the numbered placeholder {ms2}: name it by its value",
                     "t.yaml: key 't.s08' is numbered by position: name it by what it says",
                     "t.yaml: key 't.kernels.7' is numbered by position: name it by what it says"]
