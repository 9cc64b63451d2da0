"""Letters a reader cannot trust: marks drawn over a letter, a word spelled in two alphabets, a letter another
spelling normalizes to or of a script the study does not write.  Labels, run.json's environment and the site's
titles are held to them (study.schema, reportgen.publish.configcheck)."""
import unicodedata

from study import confusables


MAX_MARKS = 2
"""The most combining marks one letter of a label or an environment string carries (a name needs one or two)."""


def drawn_over(text):
    """The marks of ``text`` drawn over what a reader sees, or "": an overlay mark (a stroke laid over a letter: a
    CPU name struck out letter by letter), an enclosing one (500 of U+0489 were drawn over the lines around a
    platform fact), or more than MAX_MARKS combining marks on one letter, whatever their block (400 alternating
    U+0301 and U+0591 passed a list of blocks)."""
    run = ""
    for char in text:
        kind = unicodedata.category(char)
        if kind == "Me" or (kind == "Mn" and unicodedata.combining(char) == 1):
            return char
        run = run + char if kind == "Mn" else ""
        if len(run) > MAX_MARKS:
            return run
    return ""


_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def mixed_script(text):
    """The first word of ``text`` spelled in two of Latin, Cyrillic and Greek, or "": a Cyrillic e and C in
    'Intel(R) Xeon(R) ... CPU' read as the machine they are not (Greek mu beside Latin, a unit such as us, aside)."""
    word, scripts = "", set()
    for char in text + " ":
        if unicodedata.category(char)[0] in "LM":
            word += char
            name = unicodedata.name(char, "") if char != "\u03bc" else ""
            scripts.add(next((s for s in _LOOKALIKE_SCRIPTS if name.startswith(s + " ")), None))
            continue
        if len(scripts - {None}) > 1:
            return word
        word, scripts = "", set()
    return ""


_OWN_SCRIPTS = ("LATIN ", "CJK UNIFIED IDEOGRAPH", "DIGIT ", "GREEK SMALL LETTER MU")
_OWN_LATIN = "\u00df\u00e6\u00c6\u00f8\u00d8\u0153\u0152"
"""The Latin letters beyond an ASCII letter with marks that names are spelled with (sharp s, ae, o with stroke,
oe): none reads as another letter."""


_CJK_LOOKALIKE = "\u4e3f\u4e59\u56d7\u535c\u3007" + "".join(c for c in confusables.ADDITIONS if "\u4e00" <= c <= "\u9fff")
"""Chinese characters drawn as a Latin letter or digit (a vertical stroke as I or l, hook as J, 'work' as I, mouth as
O, box as C or U, zero as O, one as a dash; those study.confusables reads as ASCII, and a few more): one inside a
Latin word reads as the letter ('\u4e28NT8' beside 'INT8')."""


_BESIDE_LATIN = "\uff08\uff09\u3010\u3011\u300a\u300b\uff0c\u3002\u3001\uff1a\uff1b\uff01\uff1f\u201c\u201d\u2018\u2019\u00b7\u00d7\u2014\u2013\u2026\u00b5\u00b0\u2122\u00ae"
"""What may touch a Latin letter besides ASCII, spaces and Latin letters: Chinese punctuation written against a
Latin word ('\uff08Relax\uff09'), the middle dot, times, dashes, the ellipsis, micro, degree."""


_LETTER_LIKE_MATH = "\u2223\u2224\u2225\u2226\u2215\u2216\u2228\u2227\u2229\u222a\u222b\u2211\u220f\u2210\u2282\u2283\u2205\u2208\u220a\u2203\u2200\u22c1\u22c0\u27d9\u2a09"
"""Mathematical symbols drawn as a letter or a bar ('\u2223NT8' beside 'INT8', a sigma as E, a cup as U); an arrow, a
relation or an operator ('A\u2192B', '\u2264') may touch a Latin word."""


def _latin_lookalike(char):
    """A Latin letter that is not an ASCII letter, with or without marks (NFD), nor one of _OWN_LATIN: a small
    capital I (U+A7AE), a dental click (U+01C0), a dotless i read as the I of 'INT8' in a title beside it."""
    base = unicodedata.normalize("NFD", char)[0]
    return not (base.isascii() or char in _OWN_LATIN)


def foreign_letter(text):
    """The first letter or digit of ``text`` that is a lookalike, or "": one that another spelling normalizes to
    (NFKC: a compatibility ideograph beside the real one, full-width, mathematical or Kangxi forms, the Kelvin
    sign, a Roman numeral), or a letter of a script the study does not write (Cherokee E in 'GEMM', Armenian o):
    names, units and titles are written in Latin letters, digits and Chinese characters; a Latin letter is an ASCII
    letter, with marks or without, or one of _OWN_LATIN (_latin_lookalike); a Latin word is spelled in Latin letters
    (a Chinese character, a stroke or a symbol touching one read as a letter: '\u4e42eon', '\u31d1NT8')."""
    for i, char in enumerate(text):
        kind = unicodedata.category(char)
        if char in _CJK_LOOKALIKE and any(0 <= j < len(text) and text[j].isascii() and text[j].isalnum()
                                          for j in (i - 1, i + 1)):
            return char   # a stroke or radical that reads as a Latin letter, inside a Latin word ('\u4e28NT8')
        if unicodedata.bidirectional(char) in ("R", "AL", "AN") or 0x2E80 <= ord(char) <= 0x2FDF:
            return char   # right to left ('12\u05c034 ms' shows as '1234\u05c0 ms'); a CJK radical drawn as its character
        if not char.isascii() and kind[0] not in "ZM" and char not in _BESIDE_LATIN and not (
                kind[0] == "L" and unicodedata.name(char, "").startswith(("LATIN ", "GREEK SMALL LETTER MU"))) and not (
                kind == "Sm" and unicodedata.normalize("NFKC", char) == char and char not in _LETTER_LIKE_MATH) and any(
                0 <= j < len(text) and text[j].isascii() and text[j].isalpha() for j in (i - 1, i + 1)):
            return char   # anything else touching a Latin letter: '\u4e42eon', '\u31d1NT8', '\u2502NT8', '\u2223NT8'
        if kind[0] in "LN" and (unicodedata.normalize("NFKC", char) != char
                                or not unicodedata.name(char, "").startswith(_OWN_SCRIPTS)):
            return char
        if kind[0] == "L" and unicodedata.name(char, "").startswith("LATIN ") and _latin_lookalike(char):
            return char
        if kind == "So" and unicodedata.normalize("NFKC", char) != char:   # a Kangxi radical drawn as its character
            return char
    return ""
