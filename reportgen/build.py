"""`reportgen build`: MkDocs (strict) into a temporary folder, verify, then swap into place.

A failed build or a failed verification leaves the previously published site untouched.
"""
import logging
import shutil
from pathlib import Path

from .errors import ReportError


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def build(root, site_dir, strict=False, machine=None):
    """MkDocs into site.tmp, verify (with ``strict``: every coverage item met), then publish.

    ``machine``: the publication machine (id or unique prefix); default: merge.DEFAULT_RULE.
    """
    from mkdocs.commands import build as mk_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from . import verify

    root, site_dir = Path(root).resolve(), Path(site_dir).resolve()
    tmp = site_dir.with_name(site_dir.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    collect = _Collect()
    logging.getLogger("mkdocs").addHandler(collect)
    try:
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(tmp), strict=True)
        if machine:
            config.plugins["reportgen"].config.machine = machine
        mk_build.build(config)
    except MkDocsException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ReportError([f"mkdocs: {m}" for m in collect.messages] + [f"mkdocs: {exc}"],
                          hint="the published site was left unchanged") from exc
    except ReportError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ReportError(exc.problems, hint="the published site was left unchanged") from exc
    finally:
        logging.getLogger("mkdocs").removeHandler(collect)
    try:
        verify.verify(root, tmp, strict=strict)
    except ReportError as exc:
        raise ReportError(exc.problems, hint=f"the new site was kept in {tmp} for inspection; "
                                             "the published site was left unchanged") from exc
    old = site_dir.with_name(site_dir.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if site_dir.exists():
        site_dir.rename(old)
    tmp.rename(site_dir)
    shutil.rmtree(old, ignore_errors=True)
    print(f"built {site_dir}")
    return site_dir
