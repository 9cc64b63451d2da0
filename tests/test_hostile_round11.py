"""The eleventh round of the hostile corpus (issue #29): hard links, a second name of a file outside
the project (~/.netrc) planted in docs/ (MkDocs copies it into the site), docs/words, archive/ or a
campaign, or in a built site that `serve` sends (its 404 page too, which was also read through a
symlink); and a TensorIR or C artifact whose excerpt on the GEMM page was cut with splitlines, so a
form feed, \\x1c or U+2028 showed one line as several.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import errno
import os
import socket
import threading
from types import SimpleNamespace

import pytest
from test_hostile_round4 import _expect

from reportgen.commands import serve
from reportgen.data import load, plainfile
from reportgen.errors import ReportError
from reportgen.publish import sitecheck
from reportgen.publish import nofollow
from reportgen.pages import gemm
from study import schema

MUTATIONS = {}


def _secret(tmp_path):
    """A file outside the project whose content must never be published."""
    secret = tmp_path / "home" / ".netrc"
    secret.parent.mkdir()
    secret.write_text("machine example.org password SECRET\n")
    return secret


@pytest.mark.parametrize("case, where", [("docs_hard_link_outside", "docs/leak.txt"),
                                         ("words_hard_link_outside", "docs/words/zz.yaml"),
                                         ("archive_hard_link_outside", "archive/tables/t.yaml")])
def test_hard_link_in_docs_or_archive_is_refused(case, where, tmp_path):
    """Before round 11 only symlinks were refused: a hard link in docs/ was copied into site/ by
    MkDocs with the outside file's content, and one in archive/ read as the project's own."""
    secret = _secret(tmp_path)
    path = tmp_path / "project" / where
    path.parent.mkdir(parents=True)
    os.link(secret, path)
    top = tmp_path / "project" / where.split("/")[0]
    lines = plainfile.tree_problems(top, "docs/" if top.name == "docs" else "the archive")
    assert [p for p in lines if p.startswith(str(path)) and _expect(case) in p], lines


@pytest.mark.parametrize("case, name", [("campaign_database_hard_link", "database_workload.json"),
                                        ("campaign_json_hard_link", "campaign.json")])
def test_hard_link_in_a_campaign_is_refused(case, name, tmp_path):
    """A campaign's database is seeded into the next tuning job and its steps published: a hard link
    made it a file whoever holds the other name changes (and reads)."""
    secret = _secret(tmp_path)
    folder = tmp_path / "campaign"
    folder.mkdir()
    os.link(secret, folder / name)
    lines = schema.campaign_folder_problems(folder)
    assert [p for p in lines if p.startswith(str(folder / name)) and _expect(case) in p], lines


def _get(site, path):
    sitecheck.write_manifest(site)   # serve answers only what a build listed
    httpd = serve.open_server(site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(("127.0.0.1", httpd.server_address[1]), timeout=10) as conn:
            conn.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
    finally:
        httpd.shutdown()
        httpd.server_close()
    return data


@pytest.mark.parametrize("case, name, link", [("serve_404_symlink_outside", "404.html", os.symlink),
                                              ("serve_404_hard_link_outside", "404.html", os.link),
                                              ("serve_hard_link_in_site", "leak.txt", os.link)])
def test_serve_sends_no_file_from_outside_the_site(case, name, link, tmp_path):
    """serve refused a symlink on the requested path, but read 404.html with is_file()/read_bytes()
    (both follow a link) for every missing page, and sent a hard link like any file."""
    secret = _secret(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>index</p>")
    link(secret, site / name)
    data = _get(site, "/missing" if name == "404.html" else f"/{name}")
    assert data.startswith(b"HTTP/1.0 404") and b"SECRET" not in data, _expect(case)


def test_serve_still_sends_its_own_404_page(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>index</p>")
    (site / "404.html").write_text("<p>own 404</p>")
    assert b"own 404" in _get(site, "/missing")


def test_artifact_excerpt_is_cut_at_newlines_only(monkeypatch):
    """A TensorIR artifact of 3 lines holding a form feed, U+2028 and \\x1c was shown as 6 lines by
    splitlines (and 70 such lines counted as more than the 60 shown)."""
    text = "".join(f"line{i}\x0cpart\u2028part\x1cpart\r\n" for i in range(60))
    cur = SimpleNamespace(ok=True, record={"case": {"impl": "tvm", "stage": "baseline", "m": 8, "n": 8, "k": 8},
                                           "extra": {"artifacts": {"tensorir": "runs/x/artifacts/a/t.py"}}})
    monkeypatch.setattr(gemm, "_tvm_fam", lambda current: [cur])
    monkeypatch.setattr(load, "read_artifact", lambda results_dir, ref: text)
    page = gemm.tvm_excerpts("results", {}, "../data")
    shown = [line for line in page.split("\n") if "line" in line and "part" in line]
    assert len(shown) == 60 and "line59" in shown[-1], _expect("artifact_excerpt_form_feed_lines")
    assert gemm.W("gemm.tvm_excerpts.more_lines", text=60) not in page
    assert "\r" not in page


def test_cache_temporary_file_follows_no_planted_link(tmp_path):
    """The cache wrote .<name>.<pid>.tmp with write_text, which follows a link planted at that
    guessable name (a shared REPORTGEN_CACHE): the link's target was overwritten."""
    victim = tmp_path / "victim"
    victim.write_text("KEEP\n")
    folder = tmp_path / "cache" / "validated"
    folder.mkdir(parents=True)
    os.symlink(victim, folder / f".entry.{os.getpid()}.tmp")
    load._write_cache(folder / "entry", "planted")
    assert victim.read_text() == "KEEP\n" and not (folder / "entry").is_symlink(), _expect("cache_tmp_symlink")


@pytest.mark.parametrize("which", ["root", "kind"])
def test_cache_writable_by_others_is_not_used(which, tmp_path, monkeypatch):
    """An entry planted by another user in a shared cache folder marked a records file validated."""
    root = tmp_path / "shared"
    (root / "validated").mkdir(parents=True)
    monkeypatch.setenv("REPORTGEN_CACHE", str(root))
    assert load._cache_folder("validated") == root / "validated"
    os.chmod(root if which == "root" else root / "validated", 0o777)
    assert load._cache_folder("validated") is None, _expect("cache_writable_by_others")


def test_a_cache_made_under_umask_002_stays_in_use(tmp_path, monkeypatch):
    """The cache's own folders are made 0700 whatever the umask: made 0775 (umask 002, the default of
    many desktops) they would be group-writable, and _cache_folder would turn the cache off for good."""
    root = tmp_path / "fresh" / "cache"
    monkeypatch.setenv("REPORTGEN_CACHE", str(root))
    old = os.umask(0o002)
    try:
        load._write_cache(root / "validated" / "entry", "{}")
    finally:
        os.umask(old)
    assert (root / "validated" / "entry").read_text() == "{}"
    assert all(os.stat(p).st_mode & 0o777 == 0o700 for p in (tmp_path / "fresh", root, root / "validated"))
    assert load._cache_folder("validated") == root / "validated"


def test_full_disk_names_the_file(tmp_path, monkeypatch):
    """os.write's OSError(ENOSPC) carries no file name: the CLI said only 'No space left on device'."""
    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    (tmp_path / "site.tmp").mkdir()
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(ReportError) as err:
        nofollow.write_bytes(tmp_path / "site.tmp", "data/a.txt", b"x")
    assert str(err.value).startswith(str(tmp_path / "site.tmp" / "data" / "a.txt")), err.value
    assert _expect("enospc_names_file") in str(err.value) and "\n" not in str(err.value)


SPECIAL = {"cache_tmp_symlink": None, "cache_writable_by_others": None, "enospc_names_file": None,
           "docs_hard_link_outside": None, "words_hard_link_outside": None, "archive_hard_link_outside": None,
           "campaign_database_hard_link": None, "campaign_json_hard_link": None,
           "serve_404_symlink_outside": None, "serve_404_hard_link_outside": None, "serve_hard_link_in_site": None,
           "artifact_excerpt_form_feed_lines": None}
