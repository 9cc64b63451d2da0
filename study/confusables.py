"""Characters drawn alike, by the Unicode Consortium's table rather than by lists written by hand: the confusables
of UTS #39 (Unicode Security Mechanisms, vendored as confusables.txt beside this module) give each character the
prototype it is drawn as, and two texts of one skeleton read as one text.  Four rounds of attacks on the site's
titles each found a lookalike that a list written by hand had left out (U+2215 as '/', a curly quote as a straight
one, a lone U+4E28 as '|'); the table pairs thousands."""
import functools
import unicodedata
from pathlib import Path

TABLE = Path(__file__).with_name("confusables.txt")
"""UTS #39's confusables.txt, version 13.0.0, each entry as published (source ; target, code points in hex)."""

ADDITIONS = {**dict.fromkeys("\u4e00\u30fc", "-"), "\u4e28": "|", "\u5341": "+", "\u4e8c": "=", "\u4e36": "\u3001",
             "\u4e5a": "l", "\u53e3": "o", "\u5de5": "I", "\u4e42": "x", "\u4e05": "T", "\u4e85": "J", "\u4e40": "\\",
             "\u5182": "n", "\u51f5": "u", "\u531a": "C", "\u00b7": ".", "\u02f3": ".", "\u02cf": ",", "\u2715": "x",
             "\u2192": "->", "\u3010": "[", "\u3011": "]", ",": ".", ";": ":", "!": "l", "\u3001": "."}
"""What the table leaves apart that this study's titles set side by side: Chinese characters drawn as ASCII or as
Chinese punctuation ('TVM \u4e28 ORT' beside 'TVM | ORT', '\u7532 \u5341 \u4e59' beside '\u7532 + \u4e59', '\u4e42'
as x, '\u4e36' as the enumeration comma, one or the prolonged sound mark for a dash), a middle dot and the ideographic
full stop's prototype for a full stop, a small comma, a multiplication x, an arrow and lenticular brackets for what they copy in ASCII; and the
punctuation a reader takes for its neighbour in a small font ('v1.2.3' beside 'v1,2,3', ':' beside ';', '!' beside
'|', the enumeration comma beside the comma).  Every dash (Unicode's Pd, and minus)
reads as '-' as well: the table draws the em dash as the prolonged sound mark."""

VARIANTS = TABLE.with_name("cjkvariants.txt")
"""Chinese characters and the simplified form each is a variant of (traditional, Taiwan, Hong Kong and Japanese
forms, from OpenCC's dictionaries): '\u9ec3\u91d1' and '\u9ec4\u91d1' are one title to a reader of either; the
confusables table pairs none of them."""


def _read(path):
    table = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line and not line.startswith("#"):
            source, target = line.split(";")
            table[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in target.split())
    return table


@functools.cache
def _table():
    return _read(TABLE)


@functools.cache
def _folds():
    return {**_read(VARIANTS), **ADDITIONS}


def _added(text):
    folds = _folds()
    return "".join("-" if unicodedata.category(c) == "Pd" or c == "\u2212" else folds.get(c, c) for c in text)


def skeleton(text):
    """UTS #39's skeleton of ``text`` (NFD, each character replaced by its prototype, NFD again), ADDITIONS read
    before the table and after it (the table's prototype of a middle dot is a middle dot): two texts of one skeleton
    are drawn alike ('INT8' and 'lNT8', 'TVM\u2019s' and "TVM's", 'm' and 'rn')."""
    table = _table()
    drawn = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", _added(unicodedata.normalize("NFKC", text))))
    return unicodedata.normalize("NFD", _added(drawn))


def keys(text):
    """The ways a reader may take ``text`` for another: its skeleton case folded, the skeleton of it case folded
    ('INT8' is drawn as 'lNT8', 'int8' as itself; both are 'int8' once case is folded), the first with each word of
    one character left open, and the first with no spaces.  Two texts sharing a key read as one."""
    spaced = " ".join(unicodedata.normalize("NFKC", text).split())
    drawn = " ".join(skeleton(spaced).casefold().split())
    # a word of one character stands for any: 'a \u4e42 b \u4e42 c' beside 'a x b x c' differ in two, each a
    # character drawn as another that no table pairs
    lone = " ".join("\ufffc" if len(word) == 1 else word for word in drawn.split())
    # and with no spaces at all: '\u7b2c 1 \u7ae0' beside '\u7b2c1\u7ae0', 'INT8\u91cf\u5316(TVM)' beside 'INT8 \u91cf\u5316 (TVM)'
    # and as written (case folded, no spaces), marked apart from the drawn keys: a swap of two neighbours is one
    # change as written, but 'm' is drawn as 'rn' and an accented letter as two ('Gemm' beside 'Gmem', 'Caf\u00e9'
    # beside 'Ca\u00e9f' were several changes apart once drawn)
    written = "\0\0" + unicodedata.normalize("NFC", spaced.casefold()).replace(" ", "")
    return frozenset({drawn, " ".join(skeleton(spaced.casefold()).split()), lone, drawn.replace(" ", ""), written})


def one_apart(a, b):
    """Whether ``a`` and ``b`` differ by at most one character put in, left out or changed, or two neighbours swapped
    ('GEMM \u4f18\u5316\u9636\u68af' beside '... \u68af\u9636', 'Relax' beside 'Rleax': read as one at a glance)."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    start = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a))
    if len(a) == len(b) and a[start:start + 2] == b[start:start + 2][::-1] and a[start + 2:] == b[start + 2:]:
        return True
    return a[start + (len(a) == len(b)):] == b[start + 1:]


class Names:
    """Texts met so far, told apart as a reader tells them: ``seen(text, where)`` is where an earlier text that
    reads as this one stood, else None (and notes this one at ``where``).  Two texts read as one when they share a
    key (keys), or, with ``apart``, when a key of one is one character from a key of the other: the table pairs few
    Chinese characters ('\u672a' and '\u672b', '\u5df1' and '\u5df2' are not in it), and a list of them would be
    one more list written by hand; two entries of a navigation one character apart are taken for each other at a
    glance whatever the character."""

    def __init__(self, apart=False):
        self._where, self.apart = {}, apart

    def seen(self, text, where=None, apart=None):
        """``apart``: this text held one character apart from the others too (None: as the Names were made)."""
        found = keys(text)
        earlier = next((self._where[k] for k in sorted(found) if k in self._where), None)
        if earlier is None and (self.apart if apart is None else apart):
            earlier = next((w for k, w in self._where.items() for mine in found if one_apart(k, mine)), None)
        if earlier is None:
            self._where.update(dict.fromkeys(found, text if where is None else where))
        return earlier


def repeated(texts, apart=False):
    """The first of ``texts`` that reads as an earlier one (Names), or None."""
    names = Names(apart)
    return next((t for t in texts if names.seen(t) is not None), None)
