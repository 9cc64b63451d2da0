"""Numbers spelled in Chinese or Roman numerals, as ASCII digits: the hand-typed figure check reads '\u5feb\u4e09\u500d',
'\u5341\u6beb\u79d2', '\u4e09\u70b9\u4e8c\u4e03\u500d', '\u767e\u5206\u4e4b\u4e09\u5341' and '\u5feb \u2162 \u500d' as it reads '\u5feb 3 \u500d' (they built onto the
home page's headline answer, beside the measured figure: the site is Chinese, where a numeral in words is the
ordinary way to write 'three times')."""
import re

DIGITS = ({c: i for i, c in enumerate("\u96f6\u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d")}
          | {c: i for i, c in enumerate("\u96f6\u58f9\u8d30\u53c1\u8086\u4f0d\u9646\u67d2\u634c\u7396")}   # the financial forms
          | {"\u3007": 0, "\u4e24": 2})
SMALL = {"\u5341": 10, "\u767e": 100, "\u5343": 1000, "\u62fe": 10, "\u4f70": 100, "\u4edf": 1000}
LARGE = {"\u4e07": 10_000, "\u4ebf": 100_000_000}
_RUN = "[" + "".join(DIGITS) + "".join(SMALL) + "".join(LARGE) + "]+"
_SPELLED = re.compile(r"(\u767e\u5206\u4e4b)?(" + _RUN + r")(?:\u70b9([" + "".join(DIGITS) + r"]+))?")
_ROMAN = re.compile("[\u2160-\u2188]+")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _whole(run):
    """The value of a run of Chinese numerals: digit by digit ('\u4e8c\u3007\u4e8c\u516d') or by its tens, hundreds and
    thousands ('\u4e09\u5341\u4e8c', '\u4e00\u4e07\u4e8c\u5343')."""
    if all(c in DIGITS for c in run):
        return int("".join(str(DIGITS[c]) for c in run))
    total = section = digit = 0
    for c in run:
        if c in DIGITS:
            digit = DIGITS[c]
        elif c in SMALL:
            section += (digit or 1) * SMALL[c]
            digit = 0
        else:
            total += (section + digit or 1) * LARGE[c]
            section = digit = 0
    return total + section + digit


def _roman(run):
    import unicodedata
    letters = unicodedata.normalize("NFKC", run).upper()
    values = [_ROMAN_VALUES.get(c, 0) for c in letters]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def as_digits(text):
    """``text`` with every Chinese or Roman numeral run written in ASCII digits (line breaks kept where they are):
    '\u4e09\u70b9\u4e8c\u4e03\u500d' reads '3.27\u500d', '\u767e\u5206\u4e4b\u4e09\u5341' reads '30%', '\u2162' reads '3'; the text is read
    after NFKC too (a circled '\u3282' is '\u4e09' there), and every other character Unicode gives a number value
    reads as that number ('\u2778', '\u248c', '\u1372': numbers NFKC leaves as they are, round 94)."""
    import unicodedata
    return numbers_as_digits(_as_digits(unicodedata.normalize("NFKC", _as_digits(text))))


def numbers_as_digits(text):
    """Each character of Unicode's number categories (Nd, Nl, No) but the ASCII digits as its numeric value:
    '\u2778' reads '3', '\u0663' '3', '\u00bd' '0.5'.  Han characters (category Lo) stay: '\u4e07' is a word too."""
    import unicodedata

    def value(c):
        number = unicodedata.numeric(c, None)
        return c if number is None else str(int(number)) if float(number).is_integer() else f"{number:g}"
    return re.sub(r"[^\x00-\x7f]", lambda m: value(m.group(0)) if unicodedata.category(m.group(0)) in (
        "Nd", "Nl", "No") else m.group(0), text)


def _as_digits(text):
    def spelled(m):
        number = str(_whole(m.group(2))) + (("." + "".join(str(DIGITS[c]) for c in m.group(3))) if m.group(3) else "")
        return number + "%" if m.group(1) else number
    return _ROMAN.sub(lambda m: str(_roman(m.group(0))), _SPELLED.sub(spelled, text))
