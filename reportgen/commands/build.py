"""`reportgen build`: MkDocs (strict) into a temporary folder, verify, then swap into place.

A failed build or a failed verification leaves the previously published site untouched.
One build at a time publishes a given site (a flock beside it), and --site-dir never
points at project data: only an empty folder or a previous site (its marker file) is replaced.
"""
import contextlib
import errno
import fcntl
import logging
import os
import re
import shutil
import stat
import sys
import time
from pathlib import Path

from study import leftovers
from reportgen.commands import lockfile
from reportgen.data import merge, plainfile, safeyaml
from reportgen.data.runfacts import git_env   # noqa: F401 - build.git_env, as the commands call it
from reportgen.publish import nofollow
from reportgen.errors import ReportError


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


MARKER = ".reportgen-site"
"""Written into every site this command builds: only a folder carrying it is ever replaced."""
PROTECTED = ("results", "archive", "docs", "experiments", "reportgen", "study", "tests", ".git", ".ci", ".venv")
"""Folders of the project a site may never be built in; nor hidden folders, nor any holding files git tracks."""


def _project_folder(root, site_dir):
    """The top folder of the project that site_dir lies in, when that folder is project data, or None."""
    if not site_dir.is_relative_to(root) or site_dir == root:
        return None
    top = site_dir.relative_to(root).parts[0]
    if top in PROTECTED or top.startswith("."):
        return top
    if site_dir == root / top or not (root / ".git").exists():
        return None   # <root>/site itself, or outside a checkout: nothing to ask git
    import subprocess
    try:
        tracked = subprocess.run(["git", "-C", str(root), "ls-files", "--", top], capture_output=True, text=True,
                                 timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return top if tracked else None


def _is_site(path, legacy=True):
    """A site this command built: its marker is a plain file (never a link planted to look like one).
    ``legacy``: a site from before the marker (index.html and numbers.json) counts too; check_site_dir
    allows that only inside the project, so no folder of the user's outside it (a web page with a
    numbers.json beside it) is ever taken for a site and replaced."""
    try:
        if stat.S_ISREG(os.lstat(path / MARKER).st_mode):
            return True
    except OSError:
        pass
    return legacy and (path / "index.html").is_file() and (path / "numbers.json").is_file()


def link_problem(site_dir, root=None):
    """Why ``site_dir`` may not be used as given, or None: it is a symlink, or one of its folders below
    ``root`` is.  <root>/site is a name git does not ignore as a link (.gitignore's ``site/`` matches
    folders only), so a pull request can commit site -> any folder: the build would replace what is
    there (another site of the user's) and `serve` would publish it."""
    here = Path(os.path.abspath(site_dir))
    top = Path(os.path.abspath(root)) if root is not None else None
    chain = [here]
    if top is not None and here.is_relative_to(top):   # every folder from the root down to it
        chain = [p for p in (here, *here.parents) if p.is_relative_to(top) and p != top]
    link = next((p for p in chain if os.path.islink(p)), None)
    if link is None:
        return None
    return (f"--site-dir {here}: {link} is a symlink (to {os.readlink(link)}); a site folder is never reached "
            "through a link (a committed one would send the build outside the project): remove it")


def git_tracked(path):
    """The names git tracks at ``path`` (a file, or a folder's files): [] when none, None when git
    cannot tell (no git, not a checkout, GIT_DIR pointing elsewhere, a checkout of another user)."""
    import subprocess
    path = Path(path)
    try:
        out = subprocess.run(["git", "-C", str(path.parent), "ls-files", "-z", "--", path.name], capture_output=True,
                             timeout=30, env=git_env())
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return [name.decode("utf-8", "backslashreplace") for name in out.stdout.split(b"\0") if name]


def committed_problem(folder):
    """Why ``folder`` may not be published or restored, or None: it holds files git tracks.  A site is
    what a build wrote here; one committed (git add -f site/ or site.old/) was restored by the next
    build as the published site, and `serve` served it, pages and scripts no build checked."""
    if not os.path.isdir(folder) or os.path.islink(folder):
        return None
    tracked = git_tracked(folder)   # no git, or not a checkout: nothing can be committed there
    if not tracked:
        return None
    return (f"{folder}: holds files git tracks ({tracked[0]!r:.80}, ...); a site is written by `reportgen build`, "
            "never committed: remove them from git (git rm -r --cached) and build again")


def check_site_dir(root, site_dir):
    """Refuse a --site-dir that is project data, the root or above it, or a folder not ours."""
    problem = link_problem(site_dir, root)
    if problem:
        raise ReportError(problem)
    root, site_dir = Path(root).resolve(), Path(site_dir).resolve()
    if root == site_dir or root.is_relative_to(site_dir):
        raise ReportError(f"--site-dir {site_dir}: is the project root or contains it; "
                          "the site goes in its own folder (default: <root>/site)")
    if site_dir.name.endswith((".tmp", ".old")) or site_dir.name.startswith("."):
        # another build's work folder or lock (.X.lock): a site at X.tmp was removed by X's build, one at .X.lock
        # stopped every build of X
        raise ReportError(f"--site-dir {site_dir}: ends in .tmp or .old or starts with '.', the names of a build's "
                          "work folders and lock files (another build would remove, move or lock it); choose another name")
    name = _project_folder(root, site_dir)
    if name is not None:
        raise ReportError(f"--site-dir {site_dir}: lies in {name}/, which holds project data; "
                          "choose a folder of its own (default: <root>/site)")
    inside = next((folder for folder in site_dir.parents if _is_site(folder)), None)
    if inside is not None:
        raise ReportError(f"--site-dir {site_dir}: lies inside the site {inside}, which the next build of that site "
                          "replaces (and whose verify refuses files it did not build); choose a folder of its own")
    legacy = site_dir.is_relative_to(root)
    for path in (site_dir, site_dir.with_name(site_dir.name + ".tmp"), site_dir.with_name(site_dir.name + ".old")):
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise ReportError(f"--site-dir: {path} exists and is not a folder; it would be replaced")
        committed = committed_problem(path)   # one git ls-files a folder
        if committed:
            raise ReportError(committed)
        if path.is_dir() and any(path.iterdir()) and not _is_site(path, legacy):
            raise ReportError(f"--site-dir: {path} is not empty and is not a site built by reportgen "
                              f"(no {MARKER}); refusing to replace it")
    return site_dir


def _remove(path):
    """Remove a folder of ours, or say in one line why it cannot be (a read-only folder)."""
    if not os.path.lexists(path):
        return

    def fail(_function, failed, exc):
        if isinstance(exc, FileNotFoundError):   # gone already: nothing left to remove
            return
        raise ReportError(f"{failed}: cannot remove ({getattr(exc, 'strerror', None) or exc}); "
                          f"{path} is left from an earlier build", hint=f"make {path} writable or delete it")
    def rmtree(target):
        if sys.version_info >= (3, 12):
            shutil.rmtree(target, onexc=fail)
        else:
            shutil.rmtree(target, onerror=lambda function, failed, info: fail(function, failed, info[1]))
    if not os.path.isdir(path) or os.path.islink(path):
        return rmtree(path)
    # the marker goes last: a removal stopped half-way (Ctrl-C) still leaves a folder the next build can
    # prove is its own, not one check_site_dir refuses as "not a site" until removed by hand
    for entry in os.scandir(path):
        if entry.name == MARKER:
            continue
        if entry.is_dir(follow_symlinks=False):
            rmtree(entry.path)
        else:
            try:
                os.unlink(entry.path)
            except OSError as exc:
                fail(os.unlink, entry.path, exc)
    rmtree(path)


CONFIG_KEYS = ("site_name", "site_description", "docs_dir", "exclude_docs", "not_in_nav", "site_dir",
               "use_directory_urls", "strict", "validation", "theme", "plugins", "markdown_extensions", "extra",
               "extra_css", "extra_javascript", "nav")
"""The top-level settings of mkdocs.yml a build accepts: what the project uses, nothing that reads or
runs a file from elsewhere (INHERIT, hooks, watch)."""
PINNED_FLAGS = {"use_directory_urls": ("false", ("false", "no", "off")), "strict": ("true", ("true", "yes", "on"))}
"""The settings of mkdocs.yml the build is made for, pinned: flat .html pages its links name, and a build that
stops on MkDocs' warnings."""
BOOL_TAG = "tag:yaml.org,2002:bool"
CORE_TAGS = tuple(f"tag:yaml.org,2002:{kind}" for kind in ("str", "int", "float", "bool", "null", "map", "seq"))
NULL_TAG = "tag:yaml.org,2002:null"


@contextlib.contextmanager
def _commit_date(root):
    """SOURCE_DATE_EPOCH set to the checkout's commit time while MkDocs builds, unless the caller set
    one: MkDocs dates the sitemap by the clock otherwise, and a site built before midnight differed
    from verify's rebuild after it (sitemap.xml.gz), so verify refused a sound site."""
    if "SOURCE_DATE_EPOCH" in os.environ:
        yield
        return
    import subprocess
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"], capture_output=True, text=True,
                             timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    if not re.fullmatch(r"[0-9]{1,11}", out):
        yield
        return
    os.environ["SOURCE_DATE_EPOCH"] = out
    try:
        yield
    finally:
        os.environ.pop("SOURCE_DATE_EPOCH", None)


THEME_SETTINGS = {"name": r"material", "custom_dir": r".*", "language": r"zh|en", "font": r"false",
                  "features": r"[a-z]+(?:\.[a-z]+)*", "palette": r"scheme|primary|accent",
                  "scheme": r"default", "primary": r"[a-z]+(?: [a-z]+)?", "accent": r"[a-z]+(?: [a-z]+)?"}
"""The theme's settings this project uses, each value's pattern (a list's items, a mapping's keys): Material
writes theme.logo and theme.favicon raw into every page's header and head (a typed figure, a link away, a
download= link and robots/referrer meta passed the build), the palette's colours and theme.direction raw
into <body>'s attributes; a font loads from Google, which an offline site cannot.  The language: Chinese or
English (Material's right-to-left ones turn every page's body rtl, which the site checks refuse unnamed)."""
THEME_LISTS = ("features",)
"""The theme settings that are a list (palette is a mapping; every other setting one plain value)."""
EXTRA_SETTINGS = ("polyfills",)
"""The keys of mkdocs.yml's extra: this project uses (the plugin pins their values): Material writes others
(consent, social, alternate, analytics, generator) into every page, keys included."""
THEME_DIR = "reportgen/publish/theme"
"""The one theme.custom_dir: the project's own templates, code in the package."""
MAX_CONFIG_BYTES = 64 * 1024
"""The most bytes mkdocs.yml may have (the committed one has under 4000): its titles and nav are written into
every page (a 100 000-entry nav, a 1.2-million-character site_name: gigabytes of site)."""
MAX_PATTERN_STARS = 4
"""The most '*' a line of exclude_docs or not_in_nav holds (the project's have two): MkDocs' matcher
(pathspec) backtracks on each, and twelve in one line took 19 s to collect the docs, seventeen hours."""


def _patterns_problem(path, name, value):
    """exclude_docs / not_in_nav: a text of path patterns of at most MAX_PATTERN_STARS stars a line."""
    text = getattr(value, "value", None)
    lines = text.splitlines() if isinstance(text, str) else None
    if lines is None or len(lines) > 100 or any(len(line) > 200 or line.count("*") > MAX_PATTERN_STARS for line in lines):
        raise ReportError(f"{path}:{value.start_mark.line + 1}: {name}: not a text of at most 100 path patterns, each "
                          f"of at most 200 characters and {MAX_PATTERN_STARS} '*' (MkDocs' matcher backtracks on each "
                          "star: twelve in one line took 19 s to collect the docs)")


_OWN_FILE = re.compile(r"(?!.*\.\.)(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*")
_OWN_KIND = {"nav": ".md", "extra_css": ".css", "extra_javascript": ".js"}
"""A target nav, extra_css or extra_javascript may name: a relative path of the project's plain names (no scheme,
host, quote, space, query, '..', '.' or empty part: index.md/ and index.md//. are index.md to MkDocs), of its kind
(_OWN_KIND: a page, a stylesheet, a script)."""
VALIDATION = {"nav": ("omitted_files", "not_found"), "links": ("not_found", "anchors", "unrecognized_links", "absolute_links")}
"""mkdocs.yml's validation: as committed, each level 'warn' (strict turns it into a failure): 'info' let a nav target
holding a quote past the missing-file check, to be written raw into every page's navigation."""


def _targets_problem(path, name, node):
    """Raise naming the line when nav, extra_css or extra_javascript names a target that is not a file of the project
    (_OWN_FILE: javascript:, data:, https:, //host, a quote), or nav names one file twice.  MkDocs writes a nav
    target into every page's navigation, a stylesheet into every page's head; verify refused each built page,
    never naming mkdocs.yml; 235 sections of index.md made a 48.8 MB site."""
    import yaml
    stack, seen = [node], set()
    while stack:
        item = stack.pop()
        if isinstance(item, yaml.MappingNode):
            stack.extend(v for _k, v in item.value)   # a title: target pair (the titles are checked as text)
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(item.value)
        elif isinstance(item, yaml.ScalarNode) and not (_OWN_FILE.fullmatch(item.value)
                                                        and item.value.endswith(_OWN_KIND[name])):
            raise ReportError(f"{path}:{item.start_mark.line + 1}: {name}: {item.value[:60]!r} is not a file of the "
                              "project (a relative path of plain names ending in "
                              f"{_OWN_KIND[name]}: no URL, scheme, host, quote, '..' or empty part); the site links "
                              "and loads its own files only")
        elif isinstance(item, yaml.ScalarNode) and name == "nav" and item.value in seen:
            raise ReportError(f"{path}:{item.start_mark.line + 1}: nav: {item.value[:60]!r} is listed twice; each page "
                              "has one place in the navigation, which the theme writes into every page")
        else:
            seen.add(getattr(item, "value", None))


def _fixed_settings_problem(path, mapping):
    """Raise naming the line when mkdocs.yml's theme leaves out a setting the project relies on (theme: material as one
    line, or without custom_dir or font: Material's inline scripts and Google's fonts reached every page), a setting
    of PINNED_FLAGS is not its value, or its validation: is not the committed one (VALIDATION)."""
    import yaml
    top = {k.value: (k, v) for k, v in mapping.value if isinstance(k, yaml.ScalarNode)}
    theme = top.get("theme", (None, None))[1]
    names = {getattr(k, "value", None) for k, _v in theme.value} if isinstance(theme, yaml.MappingNode) else set()
    missing = [n for n in ("name", "custom_dir", "font") if n not in names]
    if missing:
        where = theme.start_mark.line + 1 if theme is not None else 1
        raise ReportError(f"{path}:{where}: theme: {', '.join(missing)} missing; the theme is a mapping naming "
                          f"material, custom_dir: {THEME_DIR} and font: false")
    for name, (want, spellings) in PINNED_FLAGS.items():
        key, value = top.get(name, (None, None))
        if not (isinstance(value, yaml.ScalarNode) and value.tag == BOOL_TAG and value.value.lower() in spellings):
            # use_directory_urls: true moved every page to a folder, and every figure's, record's and CSV's link of
            # the build (flat .html pages) pointed nowhere; left out, MkDocs takes true
            raise ReportError(f"{path}:{key.start_mark.line + 1 if key is not None else 1}: {name}: "
                              f"{str(getattr(value, 'value', 'missing'))[:40]!r} is not {want}, the value the build's "
                              "links and checks are made for")
    key, validation = top.get("validation", (None, None))
    levels = {(getattr(a, "value", None), getattr(b, "value", None)): getattr(level, "value", None)
              for a, section in (validation.value if isinstance(validation, yaml.MappingNode) else ())
              for b, level in (section.value if isinstance(section, yaml.MappingNode) else [(None, None)])}
    if levels != {(a, b): "warn" for a, names in VALIDATION.items() for b in names}:   # left out: MkDocs' info levels
        raise ReportError(f"{path}:{key.start_mark.line + 1 if key is not None else 1}: validation: not the committed levels (each of "
                          f"{', '.join(f'{a}.{b}' for a, names in VALIDATION.items() for b in names)}: warn); "
                          "a missing page or link stops the strict build")


def _theme_setting_problem(path, key, value):
    """Raise naming the line when a theme setting is not one of THEME_SETTINGS or its value (a scalar, a list's
    items, a mapping's keys and their values) does not match the setting's pattern."""
    import yaml
    name = getattr(key, "value", None)
    pairs = [(name, value)]
    while pairs:
        setting, node = pairs.pop()
        if setting not in THEME_SETTINGS:
            raise ReportError(f"{path}:{key.start_mark.line + 1}: theme.{str(setting)[:40]}: not a theme setting this "
                              f"project uses ({', '.join(sorted(THEME_SETTINGS))}); the theme writes its settings raw "
                              "into every page")
        if isinstance(node, yaml.MappingNode) and setting == "palette":
            for k, v in node.value:
                if not re.fullmatch(THEME_SETTINGS[setting], str(getattr(k, "value", ""))):
                    raise ReportError(f"{path}:{k.start_mark.line + 1}: theme.{setting}: {getattr(k, 'value', '')!r:.40} is "
                                      "not one of its keys this project uses")
                pairs.append((getattr(k, "value", None), v))
        elif isinstance(node, yaml.SequenceNode) and setting in THEME_LISTS:
            pairs.extend((setting, item) for item in node.value)
        elif not isinstance(node, yaml.ScalarNode) or (setting == "font") != (node.tag == "tag:yaml.org,2002:bool"):
            # language: [zh, en] matched item by item and stopped the theme; font: 'false', a text, loaded Google's fonts
            raise ReportError(f"{path}:{node.start_mark.line + 1}: theme.{setting}: one plain value "
                              f"{'(the YAML false)' if setting == 'font' else '(a text)'} is the kind this project uses")
        elif not re.fullmatch(THEME_SETTINGS[setting], str(getattr(node, "value", ""))):
            raise ReportError(f"{path}:{node.start_mark.line + 1}: theme.{setting}: {getattr(node, 'value', '')!r:.40} is "
                              "not a value this project uses (the theme writes it raw into every page)")


def _config_problems(root):
    """Refuse, in one line, what MkDocs would take silently: a key given twice in mkdocs.yml (a
    second `plugins:` far down the file replaced the first, and the build ran without reportgen's
    checks, then stopped in an internal KeyError), and a SOURCE_DATE_EPOCH that is not a count of
    seconds (MkDocs' int() stopped the build with an internal ValueError naming no variable)."""

    import yaml
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None and not re.fullmatch(r"[0-9]{1,11}", epoch):
        raise ReportError(f"SOURCE_DATE_EPOCH: {epoch!r:.40} is not a count of seconds since 1970 (unset it, "
                          "or set it to one, e.g. $(git log -1 --format=%ct))")
    path = root / "mkdocs.yml"
    try:   # a plain file of bounded size: a committed link to /dev/zero was read until memory ran out
        text = plainfile.read_text(path, MAX_CONFIG_BYTES)
        stack = [safeyaml.compose(text)]   # no alias: one under extra: reused in nav: expanded without bound
    except ReportError:   # a link, not a plain file, too large: it names the file
        raise
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ReportError(f"{path}: cannot be read ({safeyaml.describe(exc)[:200]})") from None
    hidden = plainfile.hidden_text_problem(str(path), text)
    if hidden:   # site_name is in every page's title
        raise ReportError(hidden)
    document = stack[0]
    patterns, extra = set(), None   # exclude_docs / not_in_nav: "/x" is docs/x there, not a path of the machine
    for key, value in stack[0].value if isinstance(stack[0], yaml.MappingNode) else ():
        name = getattr(key, "value", None)
        if name in ("exclude_docs", "not_in_nav"):
            patterns.add(id(value))
            _patterns_problem(path, name, value)
        if name not in CONFIG_KEYS:
            raise ReportError(f"{path}:{key.start_mark.line + 1}: {name!r:.40}: not a setting this project uses "
                              f"({', '.join(CONFIG_KEYS)}); INHERIT, hooks:, watch: and the like would read or run "
                              "files outside the reviewed configuration")
        if name in ALLOWED_ITEMS:
            _extensions_problem(path, value, name)
        if name == "extra":
            extra = value   # its keys are held to EXTRA_SETTINGS after the walk (a tag or an escape is named first)
        if name in ("nav", "extra_css", "extra_javascript"):
            _targets_problem(path, name, value)
        for k, v in (value.value if name == "theme" and isinstance(value, yaml.MappingNode) else ()):
            schemes = [s for sk, s in (v.value if isinstance(v, yaml.MappingNode) else ()) if getattr(sk, "value", None) == "scheme"]
            if getattr(k, "value", None) == "palette" and (not isinstance(v, yaml.MappingNode) or any(
                    getattr(s, "value", None) != "default" for s in schemes)):
                # the stylesheets' colours are checked against a white page (sitecheck: dark text, light
                # backgrounds): on slate a finding's dark words vanished
                raise ReportError(f"{path}:{k.start_mark.line + 1}: theme.palette: one light palette (scheme: default) "
                                  "only; the project's colours are checked against a white page")
            _theme_setting_problem(path, k, v)
        where = [value] if name == "docs_dir" else [
            v for k, v in (value.value if name == "theme" and isinstance(value, yaml.MappingNode) else ())
            if getattr(k, "value", None) == "custom_dir"]
        for folder in where:
            text = str(getattr(folder, "value", ""))
            if os.path.isabs(text) or ".." in Path(text).parts or not text or \
                    any(part.startswith(".") and part != "." for part in Path(text).parts):
                # custom_dir: .git copied .git/config (a token in it) into the site
                raise ReportError(f"{path}:{folder.start_mark.line + 1}: {name}: {text!r:.60} is not a folder "
                                  "of the project (a relative path without '..' or a hidden folder such as .git)")
            if name == "docs_dir" and Path(text).as_posix().rstrip("/") != "docs":
                # docs_dir: results made every record a page to refuse, each named as docs/... that is not there
                raise ReportError(f"{path}:{folder.start_mark.line + 1}: docs_dir: {text!r:.60} is not 'docs', the "
                                  "project's pages")
            if name == "theme" and Path(text).as_posix().rstrip("/") != THEME_DIR:
                # its templates are code MkDocs runs unsandboxed: custom_dir: site/tpl took a docs page built
                # there (docs/tpl/main.md) as the theme's main.html, and a command ran at the next build
                raise ReportError(f"{path}:{folder.start_mark.line + 1}: theme.custom_dir: {text!r:.60} is not "
                                  f"{THEME_DIR!r}, the project's reviewed templates (they run unsandboxed)")
    walked = set()   # an alias is walked once: a: &x [*x] looped for ever, aliases of aliases 10^9 nodes
    while stack:
        node = stack.pop()
        if id(node) in walked:
            continue
        walked.add(id(node))
        if node.tag not in CORE_TAGS:
            # !ENV publishes an environment variable, !relative a path of the machine that builds,
            # !!python/object/apply runs a command when MkDocs loads the file
            raise ReportError(f"{path}:{node.start_mark.line + 1}: the tag {node.tag!r:.60}: mkdocs.yml holds "
                              "plain values only (no !ENV, !relative, !!python or other tags)")
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value in seen:
                    raise ReportError(f"{path}:{key.start_mark.line + 1}: {key.value!r:.60} given twice in one "
                                      "mapping (the second silently replaces the first)")
                seen.add(getattr(key, "value", None) if isinstance(key, yaml.ScalarNode) else id(key))
                stack.extend((key, value))   # a key's tag too: `? !!python/object/apply:...` ran a command
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif hidden := plainfile.hidden_text_problem("", str(node.value), controls=True):   # a YAML escape loaded
            raise ReportError(f"{path}:{node.start_mark.line + 1}: {hidden.split(': ', 1)[1]}")
        elif id(node) not in patterns and _OUTSIDE.search(str(node.value)):   # a plugin's results_dir: /, ../..
            raise ReportError(f"{path}:{node.start_mark.line + 1}: {str(node.value)!r:.60} names a path outside "
                              "the project (absolute, ~ or '..'); every path mkdocs.yml gives is one of the project")
    odd = next((k for k, _v in (extra.value if isinstance(extra, yaml.MappingNode) else [(extra, None)] if extra else ())
                if getattr(k, "value", None) not in EXTRA_SETTINGS), None)
    if odd is not None:
        raise ReportError(f"{path}:{odd.start_mark.line + 1}: extra: {str(getattr(odd, 'value', ''))[:40]!r} is not a "
                          f"setting this project uses ({', '.join(EXTRA_SETTINGS)}); the theme writes them, keys "
                          "included, into every page")
    if isinstance(document, yaml.MappingNode):
        _fixed_settings_problem(path, document)


def pinned_machine(root):
    """The machine the committed mkdocs.yml pins the site to (plugins: - reportgen: machine: ID), or
    None (no pin, or a mkdocs.yml the build itself refuses, naming the line)."""
    import yaml
    try:
        node = safeyaml.compose(plainfile.read_text(Path(root) / "mkdocs.yml", plainfile.MAX_ARCHIVE_FILE_BYTES))
    except (ReportError, OSError, ValueError, yaml.YAMLError):
        return None
    items = dict((k.value, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)) if isinstance(
        node, yaml.MappingNode) else {}   # a key written as a list is no setting (a TypeError stopped `reportgen machines`)
    for plugin in getattr(items.get("plugins"), "value", None) or []:
        for key, options in plugin.value if isinstance(plugin, yaml.MappingNode) else ():
            if getattr(key, "value", None) == "reportgen" and isinstance(options, yaml.MappingNode):
                found = [v.value for k, v in options.value if getattr(k, "value", None) == "machine"]
                return str(found[0]) if found and str(found[0]) else None
    return None


MARKDOWN_EXTENSIONS = {"attr_list": (), "md_in_html": (), "admonition": (), "tables": (), "toc": ("permalink",),
                       "pymdownx.details": (), "pymdownx.superfences": (), "pymdownx.highlight": ("use_pygments",)}
"""The Markdown extensions mkdocs.yml may name, each with the options it may set: those the project
uses. Another is code to review first: pymdownx.snippets with base_path: ['.'] put .git/config (a
token) into a page, and an option may name a path or a function (toc's slugify)."""
PLUGINS = {"search": ("separator",), "reportgen": ("results_dir", "archive_dir", "machine"), "offline": ()}
"""The plugins mkdocs.yml may name, with their options: material/projects built nested mkdocs.yml
files that none of these checks read, and any other plugin is code that runs at every build."""
ALLOWED_ITEMS = {"markdown_extensions": MARKDOWN_EXTENSIONS, "plugins": PLUGINS}
PINNED_OPTIONS = {("plugins", "search", "separator"):
                  r'[\s\u200b\-_,:!=\[\]()"`/]+|\.(?!\d)|&[lg]t;|(?!\b)(?=[A-Z][a-z])',
                  ("markdown_extensions", "toc", "permalink"): "true",
                  ("markdown_extensions", "pymdownx.highlight", "use_pygments"): "true"}
"""Options whose value is code a visitor's browser runs or text written beside every heading: the search separator
is a regular expression the search worker applies to every page (an invalid one broke search, '(\\S+\\s?)+\\u0001'
hung every visitor's worker); toc's permalink is the anchor's text (60 000 '<' made a 216 MB site): the reviewed
value only."""


def _extensions_problem(path, node, section="markdown_extensions"):
    """Raise ReportError for a ``section`` (markdown_extensions or plugins) naming an item or an option
    outside ALLOWED_ITEMS."""
    table = ALLOWED_ITEMS[section]
    import yaml
    pairs = []
    for item in node.value if isinstance(node, yaml.SequenceNode) else [node]:
        pairs += item.value if isinstance(item, yaml.MappingNode) else [(item, None)]
    for name, options in pairs:
        allowed = table.get(name.value) if isinstance(name, yaml.ScalarNode) else None
        if allowed is None:
            raise ReportError(f"{path}:{name.start_mark.line + 1}: {section}: {(name.value if isinstance(name, yaml.ScalarNode) else name.id)!r:.60}: "
                              f"not one this project uses ({', '.join(table)})")
        if options is not None and not isinstance(options, yaml.MappingNode) and options.tag != NULL_TAG:
            raise ReportError(f"{path}:{options.start_mark.line + 1}: {section}: {name.value}: "
                              "its options are a mapping of option: value")
        for key, value in options.value if isinstance(options, yaml.MappingNode) else ():
            if getattr(key, "value", None) not in allowed or not isinstance(value, yaml.ScalarNode):
                raise ReportError(f"{path}:{key.start_mark.line + 1}: {section}: {name.value}: "
                                  f"{getattr(key, 'value', '')!r:.40}: not an option this project sets "
                                  f"({', '.join(allowed) or 'none'}, each a plain value)")
            pinned = PINNED_OPTIONS.get((section, name.value, key.value))
            if pinned is not None and value.value != pinned:
                raise ReportError(f"{path}:{key.start_mark.line + 1}: {section}: {name.value}: {key.value}: not the "
                                  "reviewed value (reportgen/commands/build.py PINNED_OPTIONS): it is code every "
                                  "visitor's browser runs, or text written into every page")


_OUTSIDE = re.compile(r"^\s*[/~]|(^|[/\\])\.\.([/\\]|$)")
"""A value of mkdocs.yml that is an absolute, home or parent path."""


def _raised_on_a_setting(exc):
    """True when ``exc`` was raised inside an installed package (MkDocs, Markdown, an extension, the
    theme's templates) with no frame of reportgen's own code on the way: a value of mkdocs.yml they
    do not validate (toc's slugify: nope was an "internal error TypeError"). Ours stays a bug."""
    import sysconfig
    ours = Path(__file__).resolve().parents[1]
    installed = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}
    frames, tb = [], exc.__traceback__.tb_next   # past _build's own frame
    while tb is not None:
        frames.append(Path(tb.tb_frame.f_code.co_filename).resolve())
        tb = tb.tb_next
    return (bool(frames) and not any(f.is_relative_to(ours) for f in frames)
            and any(frames[-1].is_relative_to(folder) for folder in installed))


def _remove_quietly(path):
    """_remove (marker last) for a failed build's site.tmp, whose own error is the one to report."""
    try:
        _remove(path)
    except ReportError:
        pass


class _Lock:
    """flock on <parent>/.<site>.lock: a second build of the same site waits, then gives up."""

    def __init__(self, site_dir, wait_s):
        self.path = site_dir.with_name(f".{site_dir.name}.lock")
        self.wait_s = wait_s

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = lockfile.open_lock(self.path)
        deadline = time.monotonic() + self.wait_s
        said = False
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
            holder = os.pread(self.fd, 32, 0).decode(errors="replace").strip() or "?"
            if time.monotonic() >= deadline:
                os.close(self.fd)
                raise ReportError(f"{self.path}: another `reportgen build` (pid {holder}) is publishing "
                                  f"{self.path.parent / self.path.name[1:-5]}; try again when it has finished")
            if not said:
                print(f"waiting for another build (pid {holder}) to finish publishing", flush=True)
                said = True
            time.sleep(0.5)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)


def build(root, site_dir, strict=False, wait_s=600, machine=None):
    """MkDocs into site.tmp, verify (with ``strict``: every coverage item met), then publish.

    ``machine``: the publication machine (id or unique prefix); default: merge.DEFAULT_RULE.
    """
    root = Path(root).resolve()
    site_dir = check_site_dir(root, site_dir)
    with _Lock(site_dir, wait_s):
        return _build(root, site_dir, strict, machine)


def _build(root, site_dir, strict, machine):
    from mkdocs.commands import build as mk_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from reportgen.publish import verify, wordsplit

    tmp = site_dir.with_name(site_dir.name + ".tmp")
    old = site_dir.with_name(site_dir.name + ".old")
    # stopped between the two renames of a publish: site.old is the published site; it goes back
    # into place, so that a build failing now does not remove the last good site with the leftovers
    if leftovers.restore(site_dir, old):
        print(f"restored {site_dir} from {old}, left by a build stopped while publishing", flush=True)
    for left in (tmp, old):   # check_site_dir proved them ours (marker) or empty
        if left.exists():
            print(f"removing {left}, left by an earlier build (stopped, or kept for inspection after a failure)",
                  flush=True)
            _remove(left)
    tmp.mkdir(parents=True)
    # the marker goes in first (MkDocs never cleans hidden files): a build stopped half-way leaves a
    # site.tmp the next build can prove is its own and remove
    nofollow.write_text(tmp, MARKER, "built by `reportgen build`; replaced by the next build\n")
    collect = _Collect()
    logging.getLogger("mkdocs").addHandler(collect)
    try:
        _config_problems(root)
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(tmp), strict=True)
        if "reportgen" not in config.plugins:
            raise ReportError(f"{root / 'mkdocs.yml'}: plugins: no reportgen plugin (the build would publish the "
                              "pages unchecked, their figures unfilled)")
        wordsplit.prepare()   # the search's Chinese word cache: ours, never one in the shared $TMPDIR
        if machine:
            config.plugins["reportgen"].config.machine = machine
            config.plugins["reportgen"].chosen_by = merge.BY_OPTION
        with _commit_date(root):
            mk_build.build(config)
    except MkDocsException as exc:
        _remove_quietly(tmp)
        raise ReportError([f"mkdocs: {m}" for m in collect.messages] + [f"mkdocs: {exc}"],
                          hint="the published site was left unchanged") from exc
    except ReportError as exc:
        _remove_quietly(tmp)
        raise ReportError(exc.problems, hint="the published site was left unchanged") from exc
    except Exception as exc:   # noqa: BLE001 - MkDocs, Markdown or the theme broke on a setting: not ours
        _remove_quietly(tmp)
        if not _raised_on_a_setting(exc):
            raise
        page = next((found.group(1) for m in collect.messages if (found := re.match(r"Error reading page '([^']{1,200})'", m))), None)
        blamed = f"{root / 'docs' / page}: MkDocs could not convert the page" if page else \
            f"{root / 'mkdocs.yml'}: MkDocs stopped on a setting"   # a page's own text, not a setting
        raise ReportError([f"mkdocs: {m}" for m in collect.messages] + [
            f"{blamed} ({type(exc).__name__}: {str(exc)[:200]})"], hint="the published site was left unchanged") from exc
    finally:
        logging.getLogger("mkdocs").removeHandler(collect)
    from reportgen.publish import sitecheck
    try:
        sitecheck.write_manifest(tmp)   # every file the build wrote, with its sha256: verify refuses any other
    except ReportError as exc:   # a file past the bounds: nothing of it to inspect that the message does not say
        _remove_quietly(tmp)
        raise ReportError(exc.problems, hint="the published site was left unchanged") from exc
    try:
        # the runs this build just loaded and validated (the standalone `reportgen verify` reads them itself)
        verify.verify(root, tmp, strict=strict, runs=config.plugins["reportgen"].data.loaded)
    except ReportError as exc:
        raise ReportError(exc.problems, hint=f"the new site was kept in {tmp} for inspection; "
                                             "the published site was left unchanged") from exc
    changed = _machine_change(site_dir, tmp)
    try:
        if site_dir.exists():
            site_dir.rename(old)
        tmp.rename(site_dir)
    except OSError as exc:
        raise ReportError(f"{site_dir}: cannot publish the new site ({exc.strerror}); it was kept in {tmp}",
                          hint="make the folder writable, then build again") from exc
    _remove(old)
    if changed:
        print(changed, flush=True)
    print(f"built {site_dir}")
    return site_dir


def _machine_change(site_dir, tmp):
    """One line when the new site is built for another machine than the site it replaces: a run of a new
    machine id (a copied environment with one field changed) takes the whole site over by the default
    rule, which is as it should be when someone re-ran the study on a machine of theirs, and never silent."""
    from reportgen.publish import sitecheck
    try:
        before = sitecheck.read_json(site_dir / "machine.json").get("publication_machine")
        after = sitecheck.read_json(tmp / "machine.json").get("publication_machine")
    except (ReportError, AttributeError):   # no earlier site, or not one a build wrote
        return None
    if not (isinstance(before, str) and isinstance(after, str)) or before == after:
        return None
    return (f"publication machine changed: {before[:20]!r} -> {after[:20]!r}; if no one re-ran the study on "
            f"that machine, look at its runs (history.html), or build with --machine {before[:20]}")


def verify_site(root, site_dir, strict=False, printed=None):
    """`reportgen verify` and `reportgen pdf`: publish.verify, then the site compared file by file with a fresh build
    from results/ in a temporary folder (publish.sitecheck.rebuild_problems: ``printed``, pdf.printed's).
    ReportError lists every problem."""
    from reportgen.publish import sitecheck, verify
    verify.verify(root, site_dir, strict=strict)
    problems = sitecheck.rebuild_problems(root, site_dir, lambda r, s, machine: build(r, s, machine=machine),
                                          printed=printed)
    if problems:
        raise ReportError(problems)
    return True
