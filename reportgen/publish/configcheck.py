"""mkdocs.yml as MkDocs loaded it, checked before the plugin reads any data: no link in the folders it names, the
scripts pinned, and every title or setting the theme writes into every page bounded and plain text."""
import re
import unicodedata
from pathlib import Path

from reportgen.data import plainfile
from reportgen.errors import ReportError
from reportgen.publish import pagecontent
from study import confusables, schema

MAX_NAV_ENTRIES, MAX_SETTING_CHARS = 100, 300
"""The most nav titles, and characters of a title or setting, mkdocs.yml gives: the theme writes each into every
page (a 100 000-entry nav, a 1.2-million-character site_name: gigabytes of site; 495 titles, 48.8 MB; the
committed nav has 26)."""


def _walk(value):
    """(whether it is a mapping's key, the string) of every string of a setting, in the file's order: one walker for
    the nav's titles (its keys) and targets (its values) and for the other settings' strings."""
    if isinstance(value, str):
        yield False, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield True, str(key)
            yield from _walk(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)


def _strings(value):
    """Every string value in a setting (dicts and lists walked)."""
    return (text for is_key, text in _walk(value) if not is_key)


def nav_titles(nav):
    """Every title of a mkdocs.yml nav (its section and page names)."""
    return [text for is_key, text in _walk(nav or []) if is_key]


def nav_sections(nav):
    """The titles of a mkdocs.yml nav's sections (a title over a list of entries), in the file's order."""
    out = []
    for item in nav if isinstance(nav, list) else [nav] if isinstance(nav, dict) else []:
        for title, value in (item.items() if isinstance(item, dict) else ()):
            if isinstance(value, list):
                out += [str(title)] + nav_sections(value)
    return out


def nav_entries(nav):
    """How many entries a mkdocs.yml nav lists: its titles, and the pages listed without one (MkDocs titles them;
    4 000 bare '- pNNNN.md' escaped a count of titles, and each page would carry all of them)."""
    count, stack = 0, [nav or []]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            count += sum(1 for x in item if not isinstance(x, (list, dict)))
            stack.extend(x for x in item if isinstance(x, (list, dict)))
        elif isinstance(item, dict):
            count += len(item)
            stack.extend(v for v in item.values() if isinstance(v, (list, dict)))
    return count


def config_problems(config, root, options):
    """Raise ReportError for the first problem of MkDocs' ``config`` (the project at ``root``, the plugin's
    ``options``: results_dir, archive_dir)."""
    planted = plainfile.tree_problems(config.docs_dir, "docs/")   # before MkDocs collects a file
    theme = getattr(getattr(config, "theme", None), "custom_dir", None)   # MkDocs copies it as it does docs/'
    planted += plainfile.tree_problems(theme, "the theme's custom_dir") if theme else []
    if planted:
        raise ReportError(planted, hint="remove the link (copy the file into docs/ if it belongs there)")
    deep = plainfile.front_matter_depth_problems(config.docs_dir)   # before MkDocs reads any page's front matter
    if deep:
        raise ReportError(deep)
    linked = [p for p in (plainfile.linked_folder_problem(folder, root, what) for folder, what in (
        (config.docs_dir, "docs_dir"), (theme, "theme.custom_dir"), (root / options.results_dir, "results_dir"),
        (root / options.archive_dir, "archive_dir")) if folder) if p]
    if linked:
        raise ReportError(linked, hint="remove the link")
    titles = [getattr(config, "site_name", None) or ""] + nav_titles(getattr(config, "nav", None))
    # the theme writes these unescaped too: site_description into every page's <head> (a '"><details>'
    # folded every page behind one toggle), extra.alternate's names, extra.social's links
    shown = titles + [str(getattr(config, key, None) or "") for key in ("site_description", "site_author")] \
        + list(_strings(dict(getattr(config, "extra", None) or {})))
    scripts = [str(getattr(s, "path", s)) for s in list(getattr(config, "extra_javascript", None) or [])
               + list((dict(getattr(config, "extra", None) or {})).get("polyfills") or [])]
    odd = next((s for s in scripts if s not in pagecontent.OWN_SCRIPTS and not (
        s.startswith("assets/vendor/") and s.endswith(".js") and s[len("assets/vendor/"):] in pagecontent.VENDORED)), None)
    if odd is not None:   # snippets/evil.py as a script bypassed the scripts' pins
        raise ReportError(f"{config.config_file_path}: extra_javascript or extra.polyfills: {odd[:60]!r} is not one of "
                          "the project's pinned scripts (pagecontent.OWN_SCRIPTS, assets/vendor/ VENDORED)")
    long = next((t for t in shown if len(t) > MAX_SETTING_CHARS), None)
    entries = nav_entries(getattr(config, "nav", None))
    if entries > MAX_NAV_ENTRIES or long is not None:   # each written into every page
        raise ReportError(f"{config.config_file_path}: {entries} nav entries (at most {MAX_NAV_ENTRIES}) or a title or "
                          f"setting of more than {MAX_SETTING_CHARS} characters ({(long or '')[:40]!r}): the theme "
                          "writes each into every page")
    marked = next((t for t in shown if re.search(r'[<>&"]', t)), None)
    if marked is not None:   # a nav title 'x<s>' struck out the text of every page
        raise ReportError(f"{config.config_file_path}: {marked[:60]!r}: markup in a title or setting the theme "
                          "writes unescaped into every page; titles and settings are plain text")
    odd = next(((t, why) for t in titles if (why := title_problem(t))), None) or next(
        ((t, why) for t in shown if t and (why := title_problem(t))), None)
    if odd is not None:   # 200 marks stacked on a nav title, or a title of ideographic spaces, in every page's navigation
        raise ReportError(f"{config.config_file_path}: {odd[0][:60]!r}: a title or setting that is {odd[1]}; the theme writes it "
                          "into every page")
    twice = confusables.repeated(titles, apart=True)   # by UTS #39's skeleton, not a fold list written by hand
    if twice is not None:   # two entries of one name: the reader cannot tell which is which
        raise ReportError(f"{config.config_file_path}: {twice[:60]!r}: two nav titles are the same, as a reader reads "
                          "them, or one character apart; each names one place in the navigation")
    typed = [p for t in shown for p in pagecontent.typed_in_rendered(
        config.config_file_path, t, f"in the title or setting {t[:60]!r}, shown on every page")]
    if typed:
        raise ReportError(typed)
    if theme and (Path(theme).resolve().is_relative_to(Path(config.docs_dir).resolve())
                  or Path(config.docs_dir).resolve().is_relative_to(Path(theme).resolve())):
        # a template of the theme is code MkDocs runs unsandboxed; a docs file is a page we check
        raise ReportError(f"{config.config_file_path}: theme.custom_dir {theme!r:.80} lies in docs_dir (or holds "
                          "it): its files would be both the theme's templates, run unsandboxed, and pages")


def title_problem(title):
    """Why ``title`` cannot stand in the navigation every page carries, or None: longer than MAX_SETTING_CHARS,
    blank once its spaces are stripped (an empty title or ideographic spaces: a blank entry), marks drawn over its
    letters (schema.drawn_over) or a word mixing Latin, Cyrillic or Greek letters (schema.mixed_script)."""
    if len(title) > MAX_SETTING_CHARS:
        return f"longer than {MAX_SETTING_CHARS} characters"
    if not title.strip():
        return "blank"
    if title != title.strip():
        return "padded with spaces (it reads as another title of the same words)"
    other = next((c for c in title if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn")), None)
    if other is not None:   # a lone surrogate stopped MkDocs in a UnicodeEncodeError naming an offset of some page
        return (f"U+{ord(other):04X} is a control, format, surrogate, private or unassigned character, which no "
                "title needs (one draws nothing, or a box, or cannot be written)")
    if any(unicodedata.category(c) in ("Zs", "Zl", "Zp") and c not in " \u3000" for c in title):
        return "a space other than the space and the ideographic space (U+2028 breaks the line, NBSP joins words)"
    if re.search(r"[<>&]", title):   # '# &#71;EMM' settled a title the checks read as '&#71;EMM', the theme as 'GEMM'
        return "markup (a tag or a character reference, which the theme writes unescaped)"
    if schema.drawn_over(title) or _mark_apart(title):
        return "drawn over by combining marks (an overlay, an enclosing mark, more than two on one letter)"
    mixed, foreign = schema.mixed_script(title), schema.foreign_letter(title)
    if mixed:
        return f"a lookalike (its word {mixed[:30]!r} mixes Latin, Cyrillic or Greek letters)"
    if foreign:
        return f"a lookalike (U+{ord(foreign):04X} is another spelling or script of a letter)"
    odd = next((c for c in title if not c.isascii() and unicodedata.category(c)[0] in "PS" and c not in _TITLE_MARKS), None)
    if odd is not None:   # an Armenian full stop as ':', U+2043 as '-', U+2039 as '<': the fold lists kept losing
        return f"a lookalike (U+{ord(odd):04X}: titles use ASCII punctuation and Chinese punctuation only)"
    return None


def _mark_apart(title):
    """A combining mark on anything but a Latin letter, marks that do not compose with their letter into one of
    Unicode's accented letters (NFC), or a dot above on i or j (drawn as the dot it has): each made a second title
    that read as the first ('i\u0307nt8 i\u0307n TVM', 'i\u0358nt8', a dot above right, beside 'int8 in TVM')."""
    cluster = ""
    for char in title + " ":
        if unicodedata.category(char) == "Mn":
            base = cluster[:1]
            if not (base.isalpha() and unicodedata.name(base, "").startswith("LATIN ")) or (char == "\u0307" and base in "ijIJ"):
                return char
            cluster += char
            continue
        if len(cluster) > 1 and len(unicodedata.normalize("NFC", cluster)) > 1:   # a mark no accented letter has
            return cluster[1:][-1]
        cluster = char
    return ""


_TITLE_MARKS = "\uff08\uff09\u3010\u3011\u300a\u300b\u300c\u300d\u300e\u300f\uff0c\u3002\u3001\uff1a\uff1b\uff01\uff1f" \
    "\u201c\u201d\u2018\u2019\u00b7\u2014\u2013\u2026\u2192\u00d7\u00b5"
"""The punctuation and symbols beyond ASCII a title may hold: Chinese punctuation, curly quotes, the middle dot,
dashes, the ellipsis, an arrow, times, micro (read as what they copy by study.confusables)."""


MAX_CSV_LINK = 40


def csv_link_problem(text):
    """Why the CSV link's words (docs/words/plugin.yaml csv_link) cannot stand after every table, or None: the build
    writes them after the pages' size bounds, so a label of a million characters made a 3.5 KB page 100 M; a digit
    or a control character in it stopped the build naming docs/index.md, not the words."""
    if (len(text) > MAX_CSV_LINK or re.search(r'[<>&"\d]', text) or not text.strip()
            or any(unicodedata.category(c).startswith("C") for c in text)):
        return (f"{text[:60]!r} is not a short plain text (1 to {MAX_CSV_LINK} characters, no digit, no control character, "
                "no <, >, & or \"): the build writes it after every table")
    problem = title_problem(text)
    return f"{text[:60]!r}: {problem}" if problem else None
