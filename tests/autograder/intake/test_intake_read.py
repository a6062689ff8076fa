"""Reading submissions within limits (autograder.intake.read, .ziptoc): entry count and total
size refused, an oversized or over-ratio entry skipped and flagged for its student only,
members read in capped chunks whatever their header says, names that are not UTF-8 read
and flagged, never a traceback.

Small zips built here (fast); the 1 GiB bomb and the CLI runs are in
tests/autograder/test_hostile_intake.py.
"""

from __future__ import annotations

import io
import os
import zipfile

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.intake import prepare, read_capped, read_files, read_submissions
from autograder.models import RawSubmission, SubmissionsError
from autograder.notebook import notebook_bytes
from autograder.options import MIB, IntakeLimits
from benchmarks.intake_bomb import declare_size
from tests.autograder.intake.zips import write_zip, write_zip_with_invalid_utf8_names

NB = notebook_bytes(new_notebook(cells=[new_code_cell("x = 1")]))
A = "01_hyperplanes"


def _canvas(user: int, file: str, upload: int = 9000) -> str:
    return f"student{user}_{user}_{upload}_{file}"


def _flags(raws, student: str) -> list[str]:
    return next(r.flags for r in raws if r.student == student)


def test_an_archive_over_the_entry_count_is_refused_before_reading(tmp_path):
    archive = write_zip(tmp_path / "c.zip", {_canvas(i, f"{A}.ipynb"): NB for i in range(1, 6)})
    with pytest.raises(SubmissionsError, match=r"5 entries, over the limit of 4 \(--max-files\)"):
        read_files(archive, IntakeLimits(max_files=4))
    assert len(read_files(archive, IntakeLimits(max_files=5))) == 5


def test_a_folder_over_the_entry_count_or_total_is_refused(tmp_path):
    for i in range(3):
        folder = tmp_path / "class" / f"s{i}" / A
        folder.mkdir(parents=True)
        (folder / f"{A}.ipynb").write_bytes(NB)
    with pytest.raises(SubmissionsError, match="--max-files"):
        read_files(tmp_path / "class", IntakeLimits(max_files=2))
    with pytest.raises(SubmissionsError, match="--max-total-mb"):
        read_files(tmp_path / "class", IntakeLimits(max_total_bytes=2 * len(NB)))
    assert len(read_files(tmp_path / "class", IntakeLimits(max_total_bytes=3 * len(NB)))) == 3


def test_an_archive_over_the_total_is_refused(tmp_path):
    members = {_canvas(i, f"{A}.ipynb"): os.urandom(300_000) for i in range(1, 5)}
    archive = write_zip(tmp_path / "c.zip", members)
    with pytest.raises(SubmissionsError, match=r"add up to more than 1 MiB .*--max-total-mb"):
        read_files(archive, IntakeLimits(max_total_bytes=MIB))


def test_oversized_and_over_ratio_entries_are_skipped_and_flag_their_student_only(tmp_path):
    archive = write_zip(
        tmp_path / "c.zip",
        {
            _canvas(1, f"{A}.ipynb"): NB,
            _canvas(2, f"{A}.ipynb"): NB,
            _canvas(2, "big.bin"): os.urandom(MIB + 1),  # incompressible, over 1 MiB
            _canvas(3, f"{A}.ipynb"): bytes(8 * MIB),  # zeros: ~1000-fold
        },
    )
    limits = IntakeLimits(max_file_bytes=MIB)
    raws = read_submissions(archive, assignment=A, limits=limits)
    assert [r.student for r in raws] == ["1", "2", "3"]
    assert raws[0].files == {f"{A}.ipynb": NB} and raws[0].flags == []
    assert raws[1].files == {f"{A}.ipynb": NB}
    assert _flags(raws, "2") == [
        "file 'big.bin' is 1.0 MiB, over the 1 MiB limit for one file (--max-file-mb): skipped"
    ]
    assert raws[2].files == {}
    (flag,) = _flags(raws, "3")
    assert flag.startswith(f"file '{A}.ipynb' expands ") and "(--max-ratio; a zip bomb?)" in flag
    prepared = prepare(raws[2], A, [A])
    assert prepared.missing == [A] and any("missing" in f for f in prepared.flags)


def test_a_member_lying_about_its_size_is_not_trusted(tmp_path):
    liar = _canvas(2, f"{A}.ipynb")
    archive = write_zip(tmp_path / "c.zip", {_canvas(1, f"{A}.ipynb"): NB, liar: bytes(4 * MIB)})
    declare_size(archive, liar, 1000)  # 4 MiB of zeros declared as 1,000 bytes
    with zipfile.ZipFile(archive) as check:
        assert check.getinfo(liar).file_size == 1000  # the lie is what zipfile sees
    raws = read_submissions(archive, assignment=A)
    assert raws[0].files == {f"{A}.ipynb": NB} and raws[0].flags == []
    assert len(raws[1].files.get(f"{A}.ipynb", b"")) <= 1000
    (flag,) = raws[1].flags
    assert "could not be read from the zip" in flag


def test_read_capped_stops_at_the_cap_whatever_the_stream_claims():
    assert read_capped(io.BytesIO(b"x" * 10), 10) == b"x" * 10
    assert read_capped(io.BytesIO(b"x" * 11), 10) is None

    class Endless(io.RawIOBase):
        reads = 0

        def read(self, n=-1):
            self.reads += 1
            return bytes(n if n > 0 else 1024)

    endless = Endless()
    assert read_capped(endless, 3 * MIB) is None
    assert endless.reads <= 4  # 1 MiB chunks: given up right after the cap


def test_bzip2_members_are_skipped_not_unpacked(tmp_path):
    members = {_canvas(1, f"{A}.ipynb"): NB}
    archive = write_zip(tmp_path / "c.zip", members, method=zipfile.ZIP_BZIP2)
    (raw,) = read_submissions(archive, assignment=A)
    assert raw.files == {}
    assert raw.flags == [
        f"file '{A}.ipynb' is compressed with bzip2, which the grader does not unpack: "
        "skipped (ask for a zip made with ordinary deflate compression)"
    ]


def test_a_zip_name_flagged_utf8_that_is_not_is_read_as_cp437_and_flagged(tmp_path):
    archive = write_zip_with_invalid_utf8_names(
        tmp_path / "c.zip",
        {
            _canvas(1, f"{A}.ipynb"): NB,
            _canvas(2, f"{A} (é).ipynb"): NB,
            _canvas(2, "notes é.txt"): b"hi",
        },
    )
    with pytest.raises(UnicodeDecodeError):
        zipfile.ZipFile(archive)  # what the standard library does with it
    raws = read_submissions(archive, assignment=A)
    assert raws[0].files == {f"{A}.ipynb": NB} and raws[0].flags == []
    bad = "\xff\xfe".encode("latin-1").decode("cp437")
    assert raws[1].files == {f"{A} ({bad}).ipynb": NB, f"notes {bad}.txt": b"hi"}
    note = "comes under a name that is not valid UTF-8, read as cp437"
    assert raws[1].flags == [
        f"file {name!r} {note}: {_canvas(2, name)!r}"
        for name in (f"{A} ({bad}).ipynb", f"notes {bad}.txt")
    ]
    prepared = prepare(raws[1], A, [A])
    assert prepared.notebooks == {f"{A}.ipynb": NB}


def test_utf8_names_without_the_flag_are_read_as_utf8(tmp_path):
    members = {_canvas(1, f"{A}.ipynb"): NB, _canvas(1, "ü.txt"): b""}
    archive = write_zip(tmp_path / "c.zip", members)
    data = bytearray(archive.read_bytes())  # clear the UTF-8 flag the writer set on "ü"
    local = data.rfind(b"PK\x03\x04", 0, data.find("ü".encode()))
    central = data.rfind(b"PK\x01\x02", 0, data.rfind("ü".encode()))
    data[local + 7] &= ~0x08
    data[central + 9] &= ~0x08
    archive.write_bytes(bytes(data))
    with zipfile.ZipFile(archive) as check:
        assert not any("ü" in name for name in check.namelist())  # zipfile alone: cp437
    (raw,) = read_submissions(archive, assignment=A)
    assert set(raw.files) == {f"{A}.ipynb", "ü.txt"} and raw.flags == []


def test_a_folder_name_that_is_not_utf8_is_read_and_flagged(tmp_path):
    root = os.fsencode(tmp_path / "class")
    os.makedirs(root + b"/j\xf6rg/" + A.encode())
    with open(root + b"/j\xf6rg/" + A.encode() + b"/" + A.encode() + b".ipynb", "wb") as fh:
        fh.write(NB)
    with open(root + b"/j\xf6rg/" + A.encode() + b"/n\xe4me.txt", "wb") as fh:
        fh.write(b"x")
    (raw,) = read_submissions(tmp_path / "class")
    student = "j" + b"\xf6".decode("cp437") + "rg"
    name = "n" + b"\xe4".decode("cp437") + "me.txt"
    assert raw.student == student and raw.files[f"{A}.ipynb"] == NB
    note = "comes under a name that is not valid UTF-8, read as cp437"
    assert raw.flags == [
        f"file '{A}.ipynb' {note}: '{student}/{A}/{A}.ipynb'",
        f"file '{name}' {note}: '{student}/{A}/{name}'",
    ]
    raw.student.encode("utf-8")  # safe to write into grades.csv


@pytest.mark.slow
def test_many_notes_on_one_student_are_summarised(tmp_path):
    members = {_canvas(1, f"{A}.ipynb"): NB}
    members |= {_canvas(2, f"junk{i:04d}.bin"): bytes(2 * MIB) for i in range(40)}
    raws = read_submissions(write_zip(tmp_path / "c.zip", members), assignment=A)
    assert raws[0].flags == []
    flags = raws[1].flags
    assert len(flags) == 5
    assert flags[-1].startswith("36 more files skipped or flagged when read (e.g. 'junk0004.bin'")


def test_many_extra_files_are_one_flag():
    files = {f"{A}.ipynb": NB} | {f"junk/{i:04d}.txt": b"" for i in range(4000)}
    prepared = prepare(RawSubmission("1", A, files=files), A, [A])
    assert prepared.notebooks == {f"{A}.ipynb": NB}
    assert prepared.flags == [
        "extra files ignored: 4,000 (first: 'junk/0000.txt', 'junk/0001.txt', 'junk/0002.txt', ...)"
    ]
    few = prepare(RawSubmission("1", A, files={f"{A}.ipynb": NB, "a.py": b""}), A, [A])
    assert few.flags == ["extra file 'a.py' ignored"]


def test_a_folder_file_over_the_limit_is_skipped_and_flagged(tmp_path):
    for student, content in (("alice", NB), ("bob", NB + bytes(MIB))):
        folder = tmp_path / "class" / student / A
        folder.mkdir(parents=True)
        (folder / f"{A}.ipynb").write_bytes(content)
    alice, bob = read_submissions(tmp_path / "class", limits=IntakeLimits(max_file_bytes=MIB))
    assert alice.files == {f"{A}.ipynb": NB} and alice.flags == []
    assert bob.files == {}
    assert bob.flags == [
        f"file '{A}.ipynb' is 1.0 MiB, over the 1 MiB limit for one file (--max-file-mb): skipped"
    ]
