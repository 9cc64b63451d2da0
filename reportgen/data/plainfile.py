"""Reading a file of the results or the archive: a plain file of bounded size, or a one-line refusal.

Results and archive files come from pull requests and other machines.  A FIFO planted in their
place would hang a build or a verify on its first read, a device would be read without end, a
symlink would read a file outside the project, and a 12 GB (sparse) log would exhaust the memory
before anything is checked.  So every read here opens the name without following a link and
without blocking, checks on the open file (fstat: no race with a rename) that it is a regular file
no larger than the limit, and only then reads it, at most limit + 1 bytes.
"""
import errno
import os
import re
import stat
from html.parser import HTMLParser
from pathlib import Path

from reportgen.errors import ReportError
from study.schema import _INVISIBLE

MAX_RUN_FILE_BYTES = 64 * 2**20
"""The largest file a run (or campaign) may hold: 64 MiB.  The largest committed are MetaSchedule
tuning databases of about 5 MB; a log or a database ten times that is still well inside."""

MAX_ARCHIVE_FILE_BYTES = 4 * 2**20
"""The largest file of archive/: 4 MiB (the largest committed, content_map.yaml, is about 26 KB)."""


def size_problem(path, st, limit):
    """The one-line refusal of a file of ``st`` (an lstat or fstat result) over ``limit``, or None."""
    if st.st_size > limit:
        return (f"{path}: {st.st_size} bytes, more than the {limit} bytes ({limit // 2**20} MiB) "
                "such a file may have; it is refused unread")
    return None


def read_bytes(path, limit=MAX_RUN_FILE_BYTES, one_name=False):
    """The bytes of ``path``, refused (ReportError naming it) unless it is a regular file, not a
    symlink, of at most ``limit`` bytes (and, with ``one_name``, not a hard link: a second name of a
    file elsewhere).  A missing file raises FileNotFoundError as open() does."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReportError(f"{path}: is a symlink; only plain files are read") from None
        raise
    return _read_open(fd, path, limit, one_name)


def _read_open(fd, path, limit, one_name):
    """read_bytes's checks and read on a file it has opened (``fd`` is closed here)."""
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ReportError(f"{path}: is not a plain file (a FIFO, device or folder); only plain files are read")
        if one_name and st.st_nlink > 1:
            raise ReportError(f"{path}: a hard link ({st.st_nlink} names for one file); only a file of one name "
                              "is read here")
        too_big = size_problem(path, st, limit)
        if too_big:
            raise ReportError(too_big)
        data = fh.read(limit + 1)
    if len(data) > limit:   # grew after the fstat
        raise ReportError(size_problem(path, os.stat_result((0,) * 6 + (len(data),) + (0,) * 3), limit))
    return data


def replace_whole(path, data):
    """Write ``path`` whole or not at all, as a new plain file: a temporary file (tempfile.mkstemp:
    O_EXCL|O_NOFOLLOW, a name no earlier run can hold) renamed over it.  The temporary file lies beside
    the target's folder, not in it: one left by a kill -9 is never a file of the archive or the site,
    which their checks would refuse as unlisted (or a reseal would seal).  A name committed as a link
    (or a hard link) to a file elsewhere is replaced, never written through, and a write cut by a full
    disk leaves the old file as it was (the archive's SHA256SUMS, a site's site-files.json, the PDF)."""
    import tempfile
    path = Path(path)
    folder = Path(os.path.abspath(path.parent))
    fd, tmp = tempfile.mkstemp(dir=folder.parent, prefix=f".{folder.name}-{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:   # named as the file it was to be (the temporary name is gone: a folder there, a full disk)
        Path(tmp).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_under(top, rel, limit=MAX_RUN_FILE_BYTES):
    """The bytes of top/rel opened one name at a time, following no link at any step (a folder on the
    way swapped for a link to /etc after a walk would otherwise be followed: O_NOFOLLOW guards the
    last name only), of a plain file of one name within ``limit``; ReportError naming it otherwise."""
    shown = Path(top) / rel
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or "\x00" in str(rel) or any(part in ("", ".", "..") for part in parts):
        raise ReportError(f"{shown}: not a path inside {top}")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(top, flags | getattr(os, "O_DIRECTORY", 0))
    try:
        for part in parts[:-1]:
            try:
                inner = os.open(part, flags | getattr(os, "O_DIRECTORY", 0), dir_fd=fd)
            except OSError as exc:
                raise ReportError(f"{shown}: {part!r} on its way is a link or no folder ({exc.strerror}); only a "
                                  f"path inside {top} through no link is read") from None
            os.close(fd)
            fd = inner
        try:
            last = os.open(parts[-1], flags | getattr(os, "O_NONBLOCK", 0), dir_fd=fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ReportError(f"{shown}: is a symlink; only plain files are read") from None
            raise
        return _read_open(last, shown, limit, one_name=True)
    finally:
        os.close(fd)


def read_text(path, limit=MAX_RUN_FILE_BYTES, one_name=False):
    """read_bytes decoded as UTF-8 (UnicodeDecodeError as bytes.decode raises it)."""
    return read_bytes(path, limit, one_name).decode("utf-8")


MAX_FOLDER_DEPTH = 32
"""Levels of folders a run, a campaign, docs/, archive/ or a built site may nest (the deepest
committed: 5, a run's artifacts): deeper ones are refused, never entered."""


def walk(folder, problems=None, what="this folder"):
    """os.walk(folder), top-down and never following a link, but without recursion and at most
    MAX_FOLDER_DEPTH levels deep: os.walk, Path.rglob and os.makedirs recurse once per level, so
    1200 nested folders (2.4 KB of path) ended the build or verify in an internal RecursionError.
    A folder at the limit that holds folders is one line in ``problems`` and is not entered.
    A caller may prune ``dirs`` in place, as with os.walk."""
    base = os.fspath(folder)
    stack = [(base, 0)]
    while stack:
        top, depth = stack.pop()
        try:
            entries = sorted(os.scandir(top), key=lambda e: e.name)
        except OSError:
            continue
        dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        names = [e.name for e in entries if not e.is_dir(follow_symlinks=False)]
        yield top, dirs, names
        if dirs and depth + 1 >= MAX_FOLDER_DEPTH:
            if problems is not None:
                problems.append(f"{top}: holds folders nested more than {MAX_FOLDER_DEPTH} levels below {base}; "
                                f"{what} is refused there (never entered)")
            continue
        stack.extend((os.path.join(top, d), depth + 1) for d in reversed(dirs))


def tree(folder, problems=None, what="this folder"):
    """Every entry under folder (files, folders, links), as sorted Paths: Path.rglob("*") through walk."""
    from pathlib import Path
    return sorted(Path(top) / name for top, dirs, names in walk(folder, problems, what) for name in dirs + names)


def tree_problems(folder, what):
    """One line for ``folder`` if it is a symlink, else one per entry under it that is not a plain file
    (of one name: a hard link is refused) or folder, walked without following a link: a link in docs/ would publish a file from outside the
    project (MkDocs copies what a link points to), a FIFO would hang the build."""
    if os.path.islink(folder):
        return [f"{folder}: is a symlink (to {os.readlink(folder)!r:.80}); {what} is read only from a plain "
                "folder of the project"]
    out = []
    for top, dirs, names in walk(folder, out, what):
        for name in sorted(dirs + names):
            path = os.path.join(top, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                out.append(f"{path}: is a symlink (to {os.readlink(path)!r:.80}); {what} holds only plain files "
                           "(a link would publish a file from outside the project)")
            elif stat.S_ISREG(mode) and os.lstat(path).st_nlink > 1:
                # a second name of a file elsewhere (~/.netrc): MkDocs would copy its content into site/
                out.append(f"{path}: is a hard link ({os.lstat(path).st_nlink} names for one file); {what} holds "
                           "only files of its own (copy it)")
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                out.append(f"{path}: is not a plain file or folder (a FIFO or device would hang the build)")
            elif _ODD_NAME.search(name):
                # a bidi override or zero-width character makes a page's name read as another
                # ("a<U+202E>lmth.exe"), a control character reaches messages, a surrogate (a name
                # not in UTF-8) fails the page's write with no file named
                out.append(f"{os.path.join(top, ascii(name)[1:-1])}: the name holds invisible, control or "
                           f"non-UTF-8 characters; {what} names its files in plain visible text")
    return out


_ODD_NAME = re.compile("[\x00-\x1f\x7f\ud800-\udfff" + _INVISIBLE + "]")
_HIDDEN_TEXT = re.compile("[" + _INVISIBLE + "]")


_RTL_TEXT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
"""Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo...): a reviewed text of the study holds none, and
their punctuation reorders the numbers beside it."""
_CONTROL_TEXT = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f" + _INVISIBLE + "]")


def hidden_text_problem(where, text, controls=False):
    """One line naming the first zero-width, bidi-override or C1 character in a reviewed text (a docs
    page, a words text), or None: such a character makes the text read otherwise than the review saw
    it ("trojan source"), and no text of the study needs one.  ``controls``: C0 controls and DEL too
    (but tab and line ends), which a docs page's own text never needs (a backspace reached the page)."""
    found = (_CONTROL_TEXT if controls else _HIDDEN_TEXT).search(text)
    if found is None:
        rtl = _RTL_TEXT.search(text)
        if rtl is not None:   # '12\u05c034 ms' showed as '1234\u05c0 ms'
            return (f"{where}:{text.count(chr(10), 0, rtl.start()) + 1}: holds the right-to-left character "
                    f"U+{ord(rtl.group()):04X}, which reorders the numbers and words beside it; remove it")
        return None
    line = text.count("\n", 0, found.start()) + 1
    return (f"{where}:{line}: holds the invisible or bidi character U+{ord(found.group()):04X}, which makes "
            "the text read otherwise than it shows; remove it")


_REFERENCE = re.compile(r"&#(?:[xX]0*([0-9a-fA-F]+)|0*([0-9]+));?|&[A-Za-z][A-Za-z0-9]{1,40};")
"""A character reference as a browser reads it: every digit, leading zeros too (&#x000000008; is a backspace)."""


_HUGE_REFERENCE = re.compile(r"&#(?:[xX]0*(?=[1-9a-fA-F])[0-9a-fA-F]{9,}|0*(?=[1-9])[0-9]{9,})")
"""A numeric character reference of more than 8 digits past its leading zeros: no character (U+10FFFF has
7), a browser shows U+FFFD; Python's html.unescape turns its digits into an int, and past 4300 digits
stops in a ValueError."""


def bounded_references(text):
    """``text`` with each reference of more digits than any character has as '&#65533;' (what the browser
    shows for it), so that html.unescape and HTMLParser read it: the one way this code decodes them."""
    return _HUGE_REFERENCE.sub("&#65533", text)


class Parser(HTMLParser):
    """Python's HTMLParser as every reader of the project's HTML feeds it: a reference of more digits than any
    character has read as the U+FFFD a browser shows (bounded_references; HTMLParser's own decoding raised),
    and a marked section '<![' read as text (marked_section_problem refuses one where a page is written;
    Python's parser stopped on '<![foo[' with an AssertionError)."""

    def feed(self, data):
        super().feed(bounded_references(data).replace("<![", "&lt;!["))


def marked_section_problem(where, text):
    """A page's marked section '<![' (its line named), or None: a browser ends one at its first '>', Python's
    parser reads it whole (a live <meta http-equiv="refresh"> hid in one), or stops on it ('<![foo[')."""
    at = text.find("<![")
    if at < 0:
        return None
    return (f"{where}:{text.count(chr(10), 0, at) + 1}: '<![': a marked section, which a browser ends at its first "
            "'>' while Python's parser reads it whole (a live <meta http-equiv=\"refresh\"> hid in one)")


def unescape(text):
    """``text`` with its character references decoded as html.unescape does, huge ones read as U+FFFD."""
    import html
    return html.unescape(bounded_references(text))


def huge_reference_problem(where, text):
    """A docs page's or setting's numeric character reference of more digits than any character has, or None."""
    found = _HUGE_REFERENCE.search(text)
    if found is None:
        return None
    digits = len(found.group(0).lstrip("&#xX").lstrip("0"))
    return (f"{where}:{text.count(chr(10), 0, found.start()) + 1}: a character reference of {digits} digits (no "
            "character has more than 7; a browser shows U+FFFD for it)")


def references_decoded(text):
    """The text with its character references as a browser decodes them (html.unescape drops a
    reference to a control character, which the browser keeps: '&#8;' is a backspace on the page)."""
    import html

    def one(found):
        hexa, decimal = found.group(1), found.group(2)
        if hexa is None and decimal is None:
            return html.unescape(found.group(0))
        digits = hexa if hexa is not None else decimal
        point = int(digits, 16 if hexa is not None else 10) if len(digits) <= 8 else 0x110000   # past Unicode
        return chr(point) if 0 < point < 0x110000 and not 0xD800 <= point < 0xE000 else "\ufffd"
    return _REFERENCE.sub(one, text)


def shown_controls_problem(where, text):
    """hidden_text_problem with controls, of a page's text as a browser shows it (its character references
    decoded): '&#8;', '&#x000000008;' and a reference a placeholder completes ('&#{{ n }};') are backspaces."""
    return hidden_text_problem(f"{where} (character references decoded)", references_decoded(text), controls=True)


_FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
"""The YAML front matter MkDocs reads as a page's meta (mkdocs.utils.meta.YAML_RE)."""


def as_mkdocs_reads(text):
    """A docs page's text as MkDocs reads it (utf-8-sig, universal newlines): a byte-order mark or CRLF line
    ends hid a front matter MkDocs applied ('template: 404.html' turned a page into the 404 page)."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def front_matter_data(text):
    """A page's front matter as YAML decodes it, or None without one or when it does not load."""
    import yaml

    from reportgen.data import safeyaml
    found = _FRONT_MATTER.match(as_mkdocs_reads(text))
    try:
        return safeyaml.loads(found.group(1)) if found else None
    except yaml.YAMLError:
        return None


def without_front_matter(text):
    """A page's text with its front matter as blank lines (the body's lines stay where they are)."""
    text = as_mkdocs_reads(text)
    return _FRONT_MATTER.sub(lambda m: "\n" * m.group(0).count("\n"), text, count=1)


def front_matter(text):
    """The values of a page's front matter as YAML decodes them ("\\u0020" a space), one per line, or ""
    without one or when it does not load (front_matter_problem says why)."""
    values, stack = [], [front_matter_data(text)]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif item is not None:
            values.append(str(item))
    return "\n".join(values)


FRONT_MATTER_KEYS = frozenset({"title", "description", "hide", "search", "numbers"})
"""What a docs page's front matter may set: its title and description (plain text), the theme's parts it hides,
whether search indexes it, and the phrases that hold a number of its own (publish.digitforms).  Another key changes how the theme builds the
page behind the reviewed text: ``template`` picks any of the theme's templates, ``extra_css`` and the like
name files the page loads."""


MAX_FRONT_MATTER_TEXT = 300
MAX_NUMBER_PHRASES, MAX_NUMBER_PHRASE = 100, 40
"""The most characters of a page's title or description: the theme writes the title into every page's
navigation (a 3.9 MB title made a 405 MB site before the page's size was checked), as mkdocs.yml's titles."""
FRONT_MATTER_SHAPES = {"title": f"a text of at most {MAX_FRONT_MATTER_TEXT} characters",
                       "description": f"a text of at most {MAX_FRONT_MATTER_TEXT} characters", "hide": "a list of navigation, toc, footer",
                       "search": "a mapping exclude: true or false",
                       "numbers": f"a list of at most {MAX_NUMBER_PHRASES} texts of at most {MAX_NUMBER_PHRASE} "
                                  "characters, each a number with two or more characters of words"}


def _front_matter_value_ok(key, value):
    if key in ("title", "description"):
        return isinstance(value, str) and len(value) <= MAX_FRONT_MATTER_TEXT
    if key == "numbers":   # each a number in its words: '1' alone would declare every 1 of the page
        return isinstance(value, list) and len(value) <= MAX_NUMBER_PHRASES and all(
            isinstance(v, str) and len(v) <= MAX_NUMBER_PHRASE and re.search(r"\d", v)
            and len(re.sub(r"[\d\s.,:/%+-]", "", v)) >= 2 for v in value)
    if key == "hide":
        return isinstance(value, list) and all(v in ("navigation", "toc", "footer") for v in value)
    return isinstance(value, dict) and set(value) <= {"exclude"} and isinstance(value.get("exclude", False), bool)


MAX_FRONT_MATTER_BRACKETS = 64


MAX_DOCS_PAGES = 200
"""The most Markdown pages docs/ holds (the committed: 22)."""
MAX_DOCS_BYTES = 4_000_000
"""The most bytes docs/'s pages hold together (the committed: about 150 000)."""
BUILD_FOLDERS = ("provenance",)
"""The folders of the site whose pages the build writes (the provenance pages): docs/ holds no page there."""


def front_matter_depth_problems(docs_dir):
    """One line per docs page whose front matter holds more than MAX_FRONT_MATTER_BRACKETS '[' or '{': MkDocs reads
    a page's front matter with YAML's C loader before any plugin sees the page, and 40 000 nested brackets ended
    the build in a segmentation fault naming nothing (the pages' own front matter holds none)."""
    out = []
    pages = [os.path.join(top, n) for top, _dirs, names in walk(docs_dir, out, "docs/") for n in names if n.endswith(".md")]
    if len(pages) > MAX_DOCS_PAGES:   # listed in the nav or not (not_in_nav), each is built and written
        return [f"{docs_dir}: {len(pages)} pages, more than {MAX_DOCS_PAGES} (the committed: 22): each is built into the "
                "site with the navigation, whether the nav lists it or not; 3 000 wrote 85 MB before any bound"]
    size = sum(os.lstat(page).st_size for page in pages)
    if size > MAX_DOCS_BYTES:   # each page within its own bound, 200 of them 51 MB: a gigabyte of site and index
        return [f"{docs_dir}: its pages hold {size} bytes, more than {MAX_DOCS_BYTES} (the committed: about 150 000): "
                "each is built into the site and its search index"]
    owned = [page for page in pages if os.path.relpath(page, docs_dir).split(os.sep)[0] in BUILD_FOLDERS]
    if owned:   # the build writes these pages; one of docs/ there passed as generated, past the pages' bounds
        return [f"{owned[0]}: docs/{os.path.relpath(owned[0], docs_dir).split(os.sep)[0]}/ holds the pages the build "
                "writes; docs/ holds none there"]
    for path in pages:   # the walk above, read once
        try:
            found = _FRONT_MATTER.match(as_mkdocs_reads(read_text(path, MAX_ARCHIVE_FILE_BYTES)))
        except (OSError, ValueError, ReportError):
            continue   # the page's own checks name it
        count = sum(found.group(1).count(c) for c in "[{") if found else 0
        if count > MAX_FRONT_MATTER_BRACKETS:
            out.append(f"{path}: its front matter holds {count} '[' or '{{' (at most {MAX_FRONT_MATTER_BRACKETS}); "
                       "MkDocs reads it before any check, and deep nesting crashed the build")
            continue
        deep = _front_matter_depth(found.group(1)) if found else None
        if deep:
            out.append(f"{path}: its front matter, at {deep}; MkDocs reads it before any check, and deep nesting "
                       "crashed the build (a front matter is YAML every reader reads to its end)")
    return out


def _front_matter_depth(text):
    """Why a front matter nests too deep as YAML nests it (block sequences and mappings too: 40 000 '- ' on one
    line, no bracket, ended the build in a segmentation fault), or cannot be read to the end by the bounded
    pure-Python composer at all (a tab it refuses where YAML's C loader reads on: the depth was never counted, and
    the C loader crashed on the nesting after it); or None.  The page's own check reads it with the same loader."""
    import yaml

    from reportgen.data import safeyaml
    try:
        safeyaml.compose("\n" + text)   # its lines counted as the page's: the '---' is line 1
    except yaml.YAMLError as exc:
        return safeyaml.describe(exc)
    except RecursionError:
        return "nested deeper than Python reads"
    return None


def front_matter_problem(where, path):
    """One line for the docs page ``path`` whose front matter holds a key twice (MkDocs keeps the
    second, so the title or template the review saw first is not the one published), an alias or a
    hidden character; None for a page without front matter or with a sound one."""
    import yaml

    from reportgen.data import safeyaml
    source = as_mkdocs_reads(read_text(path, MAX_ARCHIVE_FILE_BYTES))
    found = _FRONT_MATTER.match(source)
    if found is None:
        # MkDocs also reads "Key: value" lines opening a page as its meta (MultiMarkdown style): a first
        # line "Caveat: ..." vanished from the page, two "Title:" lines were joined
        from mkdocs.utils import meta
        _text, unfenced = meta.get_data(source)
        return (f"{where}:1: opens with 'Key: value' lines MkDocs reads as page meta ({', '.join(unfenced)[:60]}), "
                "never shown; put them in a '---' front matter or start the page with its heading") if unfenced else None
    hidden = hidden_text_problem(where, source[:found.end()])
    if hidden:
        return hidden
    try:
        data = safeyaml.loads(found.group(1))
    except yaml.YAMLError as exc:
        return f"{where}: front matter: {safeyaml.describe(exc)}"
    odd = (sorted(str(k) for k in data if k not in FRONT_MATTER_KEYS) if isinstance(data, dict)
           else [] if data is None else ["(not a mapping)"])
    if not odd and isinstance(data, dict):   # the theme reads each (search: 5 stopped the build, blamed on mkdocs.yml)
        odd = [f"{k} ({FRONT_MATTER_SHAPES[k]})" for k, v in data.items() if not _front_matter_value_ok(k, v)]
    if odd:
        return (f"{where}: front matter: {', '.join(odd)[:60]}: a docs page's front matter sets "
                f"{', '.join(sorted(FRONT_MATTER_KEYS))} only, each as the theme reads it (a template or the files "
                "a page loads are the theme's)")
    hidden = hidden_text_problem(f"{where} front matter (escapes decoded)", front_matter(source), controls=True)
    if hidden:   # "\b" in a double-quoted title is a backspace in the page's <title>
        return hidden
    marked = next((v for v in front_matter(source).split("\n") if re.search(r"[<>&\"]", v)), None)
    if marked is not None:   # a title '<s><font color=#fff>' struck out and hid every page's text
        return (f"{where}: front matter: {marked[:60]!r}: markup in a value the theme writes unescaped into the "
                "page (its title, the navigation); front matter holds plain text")
    return None


def linked_folder_problem(folder, root, what):
    """One line when a folder below ``root`` on the way to ``folder`` (``folder`` included) is a
    symlink, or None: mkdocs.yml's docs_dir: lnk/docs, or results_dir: lnk/results, read a tree
    elsewhere through a committed link while only the last part was checked."""
    here, top = Path(os.path.abspath(folder)), Path(os.path.abspath(root))
    chain = [p for p in (here, *here.parents) if p.is_relative_to(top) and p != top]
    link = next((p for p in reversed(chain) if os.path.islink(p)), None)
    return None if link is None else (f"{link}: is a symlink on the way to {what} ({here}); the project's folders "
                                      "are reached through no link")
