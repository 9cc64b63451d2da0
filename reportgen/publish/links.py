"""Every link of a built page within the site resolves (verify reads each page's <a href> with its parser)."""
import re
from urllib.parse import unquote

from reportgen.publish import sitecheck

_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.\-]*):")
"""A link with a scheme: the scheme checks' (verify.SAFE_SCHEMES)."""


def problems(site_dir, rel, hrefs, ids):
    """Every link of a page within the site goes to a file the site holds and, on a page, to an element id it has:
    a snippet's counterpart named 'nonexistent.md' was published as a dead link without a word.  Links with a
    scheme are the scheme checks' (SAFE_SCHEMES); a link that leaves the site, starts at the host's root (a site
    read from file:// or a sub-path has another root; the theme's 404 page aside) or names a file as a folder
    ('page.html/', '%2F') is refused."""
    out, root = [], site_dir.resolve()
    for href in dict.fromkeys(hrefs):
        said, scheme = f"{site_dir / rel}: link {href[:120]!r}", _SCHEME.match(href)
        if scheme and scheme.group(1).lower() in ("http", "https") and not href[scheme.end():].startswith("//"):
            # 'http:host/x' is a path of the site when it is served over http, another host when read from file://
            out.append(f"{said} names {scheme.group(1)}: without '//' and a host, which a browser reads as a path "
                       "of the site or as another host depending on how the site is opened")
            continue
        if scheme or href.startswith("//"):
            continue
        written, _, anchor = href.partition("#")
        written = written.partition("?")[0]
        path = unquote(written)
        if path.startswith("/") and rel != "404.html":
            out.append(f"{said} starts at the host's root; a page links to the site's pages by relative paths")
            continue
        if "\0" in path or "%2f" in written.lower() or "//" in path or (path.endswith("/") and not path.endswith("../")
                                                                    and path not in ("./",)):
            out.append(f"{said} is not a path of the site's files")
            continue
        base = site_dir if path.startswith("/") else (site_dir / rel).parent
        try:
            target = base.joinpath(path.lstrip("/")).resolve() if path else (site_dir / rel).resolve()
            if target.is_dir():
                target = target / "index.html"
            target_rel, there = target.relative_to(root).as_posix(), target.is_file()
        except ValueError:
            out.append(f"{said} leaves the site")
            continue
        except OSError as exc:   # a name too long
            out.append(f"{said} cannot be followed ({exc.strerror or type(exc).__name__})")
            continue
        if not there and target_rel not in sitecheck.PDF_OUTPUTS:   # `reportgen pdf` adds these
            out.append(f"{said} goes to {target_rel}, which the site does not hold")
        elif anchor and target_rel in ids and anchor not in ids[target_rel] and unquote(anchor) not in ids[target_rel]:
            out.append(f"{said}: {target_rel} has no element #{anchor[:60]}")
        if len(out) >= 20:
            return out + [f"{site_dir / rel}: more dead links left unsaid"]
    return out
