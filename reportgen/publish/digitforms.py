"""The forms in which a docs page may hold a number of its own; every other number is a figure to be taken from a record
or the archive through a placeholder, or a fact the page declares in its front matter (``numbers:``).

The typed-figure check (pagecontent) names the units a figure is written with, and each round found another way
to write one: '\u6bcf\u79d2\u5904\u7406 2000 \u5f20', '0.3 \u4e2a\u767e\u5206\u70b9', '\u00d73.27', '3:1', '2k img/s', a Cyrillic 'm\u0455', '30\u066a', the unit in a table's
row header.  This check is its inverse: a number a page types stands only where it names something (FP32, p50,
ResNet-18, n=32), cites (\u00a732, [18], 2020 \u5e74, OSDI 2018), counts a list (1. ), gives a version (TVM 0.27,
0.1.14.post1), a shape (7\u00d77, 1024\u00b3) or a width in bits (512 \u4f4d); any other number is a problem unless the page's
front matter lists the phrase that holds it, so a reviewer reads each such number in one place of the diff.
Chinese numerals stay with the unit check ('\u4e00' is in too many words to be a number)."""
import re
import unicodedata

LEFT_OUT, COMPUTED, EDGE = "\ue000", "\ue001", "\ue002"
"""What plugin._digit_free writes for a value holding a digit, and around a number Jinja output (digit forms skip it);
EDGE beside LEFT_OUT where the value's visible text begins or ends with a digit."""
GLUED = re.compile(r"\d(?:</?[A-Za-z][^<>]*>)+[.,]?(?:</?[A-Za-z][^<>]*>)*\d")   # two figures as one: '206</a>2'


def left_out(value):
    """A placeholder's text value holding a digit, as the rendering read for typed figures writes it: LEFT_OUT,
    with EDGE where it shows a digit first or last; twice where it glues two figures itself ({{ a ~ b }})."""
    if GLUED.search(value):
        return f"{LEFT_OUT}{EDGE}{EDGE}{LEFT_OUT}"
    seen = re.sub(r"<[^<>]*>", "", value).strip()
    return f"{EDGE * seen[:1].isdigit()}{LEFT_OUT}{EDGE * seen[-1:].isdigit()}"


FRONT_MATTER_KEY = "numbers"   # its shape: reportgen.data.plainfile.FRONT_MATTER_SHAPES

_PRODUCTS = (r"TVM|LLVM|Python|NumPy|MkDocs|Material|OpenBLAS|ONNX|ONNX Runtime|ORT|TensorFlow|TensorFlow Lite|TFLite"
             r"|PyTorch|Ubuntu|Debian|GCC|Clang|Chromium|CUDA|scikit-learn|apache-tvm|apache-tvm-ffi|tvm-ffi|v")
_MAJOR_ONLY = r"LLVM|GCC|Clang|Python|Debian|Ubuntu|Zen|CUDA"   # versions named by one integer: LLVM 22, Zen 3
_VENUES = r"OSDI|PLDI|CGO|NeurIPS|ASPLOS|MLSys|ISCA|MICRO|SOSP|ICML|ICLR|PPoPP|HPCA|SC|CC|arXiv"
_NUMBER = re.compile(r"\d+(?:\.\d+)*")

_RULES = (
    # a name glued to letters: FP32, p50, int8, AVX-512, ResNet-18, x86_64, NCHW16c, n=32 (an integer only)
    ("name", lambda before, token, after: "." not in token and re.search(r"[A-Za-z_][-=]?$", before)),
    # a case's parameter by its name: batch 1, batch 8 (the records' case field)
    ("parameter", lambda before, token, after: "." not in token and re.search(r"\bbatch\s*$", before)),
    # a section or a reference: \u00a732, \u00a7 20, [18], [4]\u2013[7]
    ("cite", lambda before, token, after: "." not in token and (re.search(r"\u00a7\s*$", before)
                                                                 or (before.endswith("[") and after.startswith("]")))),
    # a year: 2020 \u5e74, OSDI 2018, ASPLOS 2023
    ("year", lambda before, token, after: re.fullmatch(r"(?:19|20)\d\d", token) and (
        re.match(r"\s*\u5e74", after) or re.search(rf"(?:{_VENUES})\s*$", before))),
    # a list's item number at the start of a line: "1. ", "  2. "
    ("list", lambda before, token, after: re.fullmatch(r"\d{1,2}", token) and re.search(r"(?:^|\n)[ \t>]*$", before)
     and re.match(r"\.\s", after)),
    # a version after its product: TVM 0.27, TVM 0.6/0.7, LLVM 22, Zen 3; a dotted triple is a version anywhere
    ("version", lambda before, token, after: token.count(".") >= 2 or re.search(
        rf"(?<![A-Za-z])(?:{_PRODUCTS if '.' in token else _MAJOR_ONLY})\s*[(\uff08]?\s*(?:\d+(?:\.\d+)*\s*/\s*)?$",
        before)),
    # a shape or a power: 7\u00d77, 224\u00d7224, 1024^3 (a superscript written so before NFKC)
    ("shape", lambda before, token, after: "." not in token and (
        re.search(r"\d\s*[\u00d7x*]\s*$", before) or re.match(r"\s*[\u00d7x*]\s*\d", after) or after.startswith("^")
        or before.endswith("^") or re.match(r"[a-z]\^", after))),   # 3n^2, 2n^3: a formula's terms
    # a width in bits or bytes of a register or a type: 8/16/32/64/128/256/512 \u4f4d
    ("bits", lambda before, token, after: token in {"8", "16", "32", "64", "128", "256", "512", "1024"}
     and re.match(r"\s*(?:\u4f4d|bit)", after)),
)


def reader_text(text):
    """``text`` with its superscript digits written as powers (1024\u00b3 reads 1024^3) and NFKC applied (a
    fullwidth '\uff12' reads '2', an Arabic-Indic digit stays a digit)."""
    from reportgen.publish import numerals
    text = re.sub("[\u00b2\u00b3\u00b9\u2070\u2074-\u2079]+", lambda m: "^" + unicodedata.normalize("NFKC", m.group(0)), text)
    return numerals.numbers_as_digits(unicodedata.normalize("NFKC", text))


def declared(meta):
    """The phrases a page's front matter (as YAML decodes it) declares under ``numbers:``, as a reader reads them."""
    phrases = meta.get(FRONT_MATTER_KEY) if isinstance(meta, dict) else None
    return [reader_text(p) for p in phrases if isinstance(p, str) and p] if isinstance(phrases, list) else []


def stray(text, phrases=()):
    """(line, number in its words) of each number of ``text`` (as a reader sees it, code masked) in none of the
    allowed forms and in none of ``phrases``; and the phrases the text does not hold (stale declarations)."""
    text = reader_text(text)
    covered = bytearray(len(text))   # the characters a declared phrase holds: one pass, not spans x numbers
    for phrase in phrases:
        for m in re.finditer(re.escape(phrase), text):
            covered[m.start():m.end()] = b"\x01" * (m.end() - m.start())
    unused = [p for p in phrases if p not in text]
    out = []
    for m in _NUMBER.finditer(text):
        if all(covered[m.start():m.end()]):
            continue
        before, after = text[max(0, m.start() - 40):m.start()], text[m.end():m.end() + 8]
        if re.match(r"[\d.]", after[:1]) and after[:2] != ". ":   # a part of a larger token the pattern split
            continue
        if any(rule(before, m.group(0), after) for _name, rule in _RULES):
            continue
        words = (before[-8:] + m.group(0) + after).strip().replace("\n", " ")
        out.append((text.count("\n", 0, m.start()) + 1, words))
    return out, unused


def stray_in(views, phrases=()):
    """(line, words) of each number outside the allowed forms and ``phrases`` in any of ``views`` (each a rendering
    of one page as read: its text, and (line, the text a tag shows apart) of its tags), and the phrases none holds."""
    found, unused = {}, set(phrases)
    for text, shown in views:
        numbers, missing = stray(text, phrases)
        found.update(dict.fromkeys(numbers + [(line, words) for line, attributes in shown
                                              for _at, words in stray(attributes, phrases)[0]]))
        unused &= set(missing)
    return list(found), unused


def problems(where, stray, unused):
    """One line per number of ``stray_in`` (page ``where``) and per declared phrase the page does not hold."""
    return [f"{where}:{line}: a number outside the forms a page may type ({words!r}): take it from a record or the "
            f"archive through a placeholder, or declare the phrase under front matter '{FRONT_MATTER_KEY}:'"
            for line, words in stray] + [f"{where}: front matter {FRONT_MATTER_KEY}: {p!r} is not in the page"
                                         for p in sorted(unused)]
