"""A zip's raw table of contents (autograder.intake.ziptoc): the declared entry count, and
names flagged UTF-8 that are not, also in an archive behind a stub (a self-extractor)."""

from __future__ import annotations

import zipfile

from autograder.intake.ziptoc import PatchedFile, misdeclared_utf8, read_toc
from tests.autograder.intake.zips import write_zip, write_zip_with_invalid_utf8_names


def test_read_toc_counts_entries_as_zipfile_does(tmp_path):
    archive = write_zip(tmp_path / "a.zip", {f"f{i}.txt": b"x" * i for i in range(7)})
    with archive.open("rb") as fh:
        toc = read_toc(fh)
    with zipfile.ZipFile(archive) as check:
        assert toc is not None and toc.entries == len(check.infolist()) == 7
        assert toc.start == check.start_dir and toc.concat == 0
    (tmp_path / "junk").write_bytes(b"no zip here" * 10)
    with (tmp_path / "junk").open("rb") as fh:
        assert read_toc(fh) is None


def test_names_flagged_utf8_behind_a_stub_are_patched(tmp_path):
    archive = write_zip_with_invalid_utf8_names(
        tmp_path / "a.zip", {"ok.txt": b"1", "bad é.txt": b"2", "dir/é.txt": b"3"}
    )
    stubbed = tmp_path / "stubbed.zip"
    stubbed.write_bytes(b"#!/bin/sh\necho self-extractor\n" * 3 + archive.read_bytes())
    with stubbed.open("rb") as fh:
        toc = read_toc(fh)
        assert toc is not None and toc.concat > 0 and toc.entries == 3
        patches, names = misdeclared_utf8(fh, toc)
        assert names == [b"bad \xff\xfe.txt", b"dir/\xff\xfe.txt"]
        assert len(patches) == 4  # the central directory and the local header of each
        with zipfile.ZipFile(PatchedFile(fh, patches)) as patched:
            bad = b"\xff\xfe".decode("cp437")
            assert patched.namelist() == ["ok.txt", f"bad {bad}.txt", f"dir/{bad}.txt"]
            assert [patched.read(n) for n in patched.namelist()] == [b"1", b"2", b"3"]
