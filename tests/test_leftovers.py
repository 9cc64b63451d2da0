"""study.leftovers.remove: one rule, for both layers, to remove what an interrupted command left."""
import os

from study import leftovers


def test_a_leftover_is_removed_whatever_it_is_and_a_link_is_never_followed(tmp_path):
    target = tmp_path / "outside"
    (target / "keep").mkdir(parents=True)
    (target / "keep" / "file").write_text("x")
    folder = tmp_path / "folder"
    (folder / "sub").mkdir(parents=True)
    os.symlink(target, folder / "sub" / "link")   # a link inside a leftover folder
    plain = tmp_path / "plain"
    plain.write_text("x")
    link = tmp_path / "link"
    os.symlink(target, link)
    dangling = tmp_path / "dangling"
    os.symlink(tmp_path / "nowhere", dangling)
    for path in (folder, plain, link, dangling, tmp_path / "missing"):
        assert leftovers.remove(path) is True and not os.path.lexists(path)
    assert (target / "keep" / "file").read_text() == "x"   # what the links pointed at is untouched


def test_restore_puts_back_only_a_real_folder_and_only_where_nothing_is(tmp_path):
    old, path = tmp_path / ".old-x", tmp_path / "x"
    old.mkdir()
    (old / "state").write_text("kept")
    assert leftovers.restore(path, old) and (path / "state").read_text() == "kept" and not old.exists()
    old.mkdir()
    assert not leftovers.restore(path, old) and old.is_dir()   # something is there: left alone
    other = tmp_path / "other"
    os.rename(path, other)
    os.rmdir(old)
    os.symlink(other, old)
    assert not leftovers.restore(path, old) and not path.exists()   # a link is never put in place
