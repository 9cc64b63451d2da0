"""The Jinja environment a docs page renders in, and how long it may take.

A docs page is reviewed input that fills in placeholders: sandboxed, immutable, no globals, and a time
limit for its renders (three nested loops over a placeholder's text ran a build for minutes).
"""
import contextlib

import re

import jinja2
import jinja2.sandbox

from reportgen.errors import ReportError


RENDER_S = 60
"""The seconds a docs page's three renders may take together (every page takes well under one)."""
BUILD_RENDER_S = 300
"""The seconds every page's renders of one build may take together (a loop of 60 s in each of 22
pages kept one build busy for 22 minutes)."""
MAX_RENDER_CHARS = 20_000_000
"""The characters one render of a page may write (the largest page writes well under one million):
two loops over a placeholder's text writing it indented 99 spaces grew to gigabytes in seconds,
within the time limit."""


def render(env, tree, names, where, limit=MAX_RENDER_CHARS):
    """The page ``tree`` rendered in ``env`` with ``names``, piece by piece: ReportError naming ``where``
    as soon as it writes more than ``limit`` characters (a whole render held in memory first was the
    memory of the machine)."""
    out, size = [], 0
    try:
        for piece in env.from_string(tree).generate(**names):
            size += len(piece)
            if size > limit:
                raise ReportError(f"{where}: renders to more than {limit} characters (a loop writing a long value "
                                  "again and again?); a page fills in placeholders, its own Jinja writes next to nothing")
            out.append(piece)
    except (jinja2.TemplateError, TypeError, ValueError, AttributeError, KeyError, IndexError, ZeroDivisionError) as exc:
        line = _page_line(exc)
        if line is None:   # raised in the project's code filling in a placeholder: its bug, reported as one
            raise
        # the page's own Jinja ('a' in false, a loop over true, an unknown test): the page's fault, named at its line
        raise ReportError(f"{where}:{line}: the page's Jinja fails here ({type(exc).__name__}: {str(exc)[:120]})") from None
    return "".join(out)


SHOWN_CHARS = 20
"""The length from which a placeholder's text must stand whole in the page it was asked for (a shorter one, a word
or a figure, may be shown through a filter)."""


def render_shown(env, tree, names, where, limit=MAX_RENDER_CHARS, unfolded=()):
    """render's text, and the names of the placeholders it called: a placeholder in the page's Jinja that never ran
    ({% if false %}{{ history_jumps() }}{% endif %}) is no placeholder the page shows.  A placeholder's text written
    into an HTML comment, or cut by the page's Jinja, is refused: both hid the jump list every flag links to, and the
    build counted it as shown.  The placeholders named in ``unfolded`` (history.SHOWN) must not sit folded either,
    in a closed <details> or a collapsed '???' block: the jump list every flag links to was folded under a closed
    toggle called 'appendix (irrelevant details)'."""
    calls = []

    def tracked(name, fill):
        def call(*args, **kwargs):
            value = fill(*args, **kwargs)
            calls.append((name, value))
            return value
        return call
    text = render(env, tree, {k: tracked(k, v) if callable(v) else v for k, v in names.items()}, where, limit)

    def lines(value):   # each line without its indent: a page indents a placeholder's text into a block
        return "\n".join(line.strip() for line in value.strip().split("\n"))
    flat = lines(text)

    def unseen(value):   # not in the text, or where a comment the page opened before it is still open
        at = flat.find(lines(value))
        return at < 0 or flat.rfind("<!--", 0, at) > flat.rfind("-->", 0, at)
    def folded(value):   # under a <details> the page opened and did not close, without open; or in a '???' block
        at = flat.find(lines(value))
        toggle = flat.rfind("<details", 0, at)
        if toggle > flat.rfind("</details", 0, at) and not re.match(r"<details\b[^>]*\bopen\b", flat[toggle:]):
            return True
        first = text.find(value.strip().split("\n")[0])
        start = text.rfind("\n", 0, first) + 1
        if first <= start or text[start:first].strip():   # not indented into a block
            return False
        above = [line for line in text[:start].split("\n") if line.strip() and not line[:1].isspace()]
        return bool(above) and re.match(r"\?\?\?(?!\+)", above[-1]) is not None
    hidden = next((name for name, value in calls
                   if isinstance(value, str) and len(value.strip()) >= SHOWN_CHARS and unseen(value)), None)
    hidden = hidden or next((name for name, value in calls if name in unfolded and isinstance(value, str)
                             and len(value.strip()) >= SHOWN_CHARS and folded(value)), None)
    if hidden is not None:
        raise ReportError(f"{where}: the text of the placeholder {hidden} is not in the page whole (written into an "
                          "HTML comment, cut by the page's Jinja, or folded away): a page shows what it asks for")
    return text, {name for name, _value in calls}


def _page_line(exc):
    """The page's line where ``exc`` was raised when its innermost frame is the page's template, else None."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if isinstance(exc, jinja2.TemplateError) and getattr(exc, "lineno", None):
        return exc.lineno
    if last is not None and last.tb_frame.f_code.co_filename == "<template>":
        return last.tb_lineno
    return None


@contextlib.contextmanager
def time_limit(seconds, where):
    """ReportError naming ``where`` when the block runs longer than ``seconds`` (SIGALRM, main thread
    only; elsewhere the block runs unbounded)."""
    import signal

    def late(_signum, frame):
        code = _placeholder_code(frame)
        if code:   # the project's code filling in a placeholder from the records, not the page's Jinja
            raise ReportError(f"{where}: rendering took more than {seconds} s in {code}, which fills in a placeholder "
                              "from the records (a record too large for it? the pages' records are checked against "
                              "study.work's limits)")
        raise ReportError(f"{where}: rendering took more than {seconds} s (a loop over a long value?); a page "
                          "fills in placeholders, its own Jinja does next to no work")
    try:
        previous = signal.signal(signal.SIGALRM, late)
    except ValueError:
        yield
        return
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _placeholder_code(frame):
    """'reportgen/pages/graph.py: _demo_details' for the innermost frame of the pages' code (else of the
    render helpers') on the stack when the time ran out, else None."""
    found = {}
    while frame is not None:
        path = frame.f_code.co_filename.replace("\\", "/")
        for part in ("/reportgen/pages/", "/reportgen/render/"):
            if part in path and part not in found:
                found[part] = f"{part[1:]}{path.rsplit(part, 1)[1]}: {frame.f_code.co_name}"
        frame = frame.f_back
    return found.get("/reportgen/pages/") or found.get("/reportgen/render/")


def sandbox(finalize=None):
    """The Jinja environment a docs page renders in: sandboxed and immutable, with no globals (docs
    pages are reviewed input, and Jinja's own lipsum and cycler reached Python's builtins through
    lipsum.__globals__, which opened and wrote files anywhere); "{#" starts a Markdown heading id
    ({#anchor}), so Jinja comments use "{##" instead.  ``finalize``: what a placeholder's value becomes."""
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True,
        comment_start_string="{##", comment_end_string="##}", **({"finalize": finalize} if finalize else {}))
    env.globals.clear()
    return env
