"""Reading the files of a class's submissions from a folder or a zip, without extracting
anything, within limits: every regular file's relative POSIX path mapped to a
:class:`FileEntry` (its bytes, or None when it was not read, and what to tell about it).
Which student and notebook a file belongs to is the layouts' job
(:mod:`autograder.intake.layouts`).

Limits (:class:`~autograder.options.IntakeLimits`, one of a run's options, settable on the
command line):

- **entries** (``max_files``, default 20,000): an archive whose table of contents declares
  more entries, or a folder with more files, is refused (:class:`SubmissionsError`, exit 2)
  before any file is read; so is a table of contents over 1 KiB per allowed entry;
- **total** (``max_total_bytes``, default 1 GiB): the files to be read add up to more,
  unzipped (declared sizes first, then the bytes actually read) — refused likewise;
- **one file** (``max_file_bytes``, default 50 MiB): a bigger file is skipped, and the
  student it belongs to flagged; the other students are read as usual;
- **compression ratio** (``max_ratio``, default 100, for entries over 1 MiB unzipped): an
  entry that expands more (a zip bomb) is skipped and flagged.

Sizes declared by a zip are never trusted: members are decompressed in 1 MiB chunks and
given up once over the one-file limit, and only stored and deflated members are read
(bzip2 and LZMA cannot be decompressed in bounded chunks by :mod:`zipfile`). The memory
held is at most the total limit plus twice the one-file limit plus the table of contents.
A name that is not valid UTF-8 (a zip entry flagged UTF-8, a folder's file on disk) is
read as cp437 and flagged, never an error.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from autograder.intake.ziptoc import PatchedFile, misdeclared_utf8, read_toc
from autograder.models import SubmissionsError
from autograder.options import MIB, IntakeLimits
from autograder.text import first_line

CHUNK_BYTES = MIB

_IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints", ".DS_Store"}
_READABLE_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
_METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA", 9: "deflate64"}


def _not_utf8(name: str) -> str:
    return f"comes under a name that is not valid UTF-8, read as cp437: {name!r}"


#: Largest file read from a submission by default (anything bigger is flagged and skipped).
MAX_FILE_BYTES = IntakeLimits().max_file_bytes


@dataclass
class FileEntry:
    """One file of the submissions: its bytes (None: not read) and what to tell about it
    (notes without the file's name, e.g. "is 60 MiB, over the 50 MiB limit ...: skipped")."""

    content: bytes | None
    notes: list[str] = field(default_factory=list)


def read_files(path: Path, limits: IntakeLimits | None = None) -> dict[str, FileEntry]:
    """Every file of a folder or zip: relative POSIX path -> :class:`FileEntry`.

    Raises
    ------
    SubmissionsError
        ``path`` does not exist, is not a readable zip, holds no file, or is over the
        entry-count or total-size limit.
    """
    limits = limits or IntakeLimits()
    if path.is_dir():
        files = _read_tree(path, limits)
    elif path.is_file():
        files = _read_zip(path, limits)
    else:
        raise SubmissionsError(f"no such file or folder: {path}")
    if not files:
        raise SubmissionsError(f"no files found in {path}")
    return files


def _mib(n: int) -> str:
    return f"{n / MIB:,.1f} MiB" if n % MIB else f"{n // MIB:,} MiB"


def _too_many(where: str, count: int, limits: IntakeLimits) -> SubmissionsError:
    return SubmissionsError(
        f"{where} holds {count:,} entries, over the limit of {limits.max_files:,} "
        "(--max-files): not read"
    )


def _too_much(where: str, total: int, limits: IntakeLimits) -> SubmissionsError:
    return SubmissionsError(
        f"the files of {where} add up to more than {_mib(limits.max_total_bytes)} "
        f"({_mib(total)} so far; --max-total-mb): not read"
    )


def _oversized(size: int, limits: IntakeLimits) -> str:
    return (
        f"is {_mib(size)}, over the {_mib(limits.max_file_bytes)} limit for one file "
        "(--max-file-mb): skipped"
    )


def read_capped(stream: IO[bytes], cap: int) -> bytes | None:
    """All of ``stream`` read in chunks, or None as soon as it holds more than ``cap`` bytes
    (whatever size it claims)."""
    buffer = bytearray()
    while True:
        chunk = stream.read(min(CHUNK_BYTES, cap + 1 - len(buffer)))
        if not chunk:
            return bytes(buffer)
        buffer += chunk
        if len(buffer) > cap:
            return None


def _is_ignored(path: PurePosixPath) -> bool:
    return any(part in _IGNORED_PARTS or part.startswith("._") for part in path.parts)


def _decoded(name: str) -> tuple[str, bool]:
    """A relative path from disk as text that can be written anywhere, and whether a part
    of it was not UTF-8 (that part's bytes are then read as cp437)."""
    parts, changed = [], False
    for part in name.split("/"):
        try:
            part.encode("utf-8")
        except UnicodeEncodeError:
            part, changed = os.fsencode(part).decode("cp437"), True
        parts.append(part)
    return "/".join(parts), changed


def _read_tree(root: Path, limits: IntakeLimits) -> dict[str, FileEntry]:
    """Every regular file under ``root``: relative POSIX path -> entry."""
    files: dict[str, FileEntry] = {}
    count = total = 0
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        count += 1
        if count > limits.max_files:
            raise SubmissionsError(
                f"{root.name or 'the folder'} holds more than {limits.max_files:,} files "
                "(--max-files): not read"
            )
        rel, not_utf8 = _decoded(path.relative_to(root).as_posix())
        if _is_ignored(PurePosixPath(rel)):
            continue
        entry = FileEntry(None, [_not_utf8(rel)] if not_utf8 else [])
        try:
            size = path.stat().st_size
            if size <= limits.max_file_bytes:
                with path.open("rb") as fh:
                    entry.content = read_capped(fh, limits.max_file_bytes)
        except OSError as exc:
            size, entry.content = 0, b""
            entry.notes.append(f"could not be read ({exc.strerror or exc}): read as an empty file")
        if entry.content is None:  # too big, or grew too big while read
            entry.notes.append(_oversized(max(size, limits.max_file_bytes + 1), limits))
        total += len(entry.content or b"")
        if total > limits.max_total_bytes:
            raise _too_much(root.name or "the folder", total, limits)
        files[rel] = entry
    return files


def _open_zip(raw: BinaryIO, name: str, limits: IntakeLimits) -> tuple[zipfile.ZipFile, set[str]]:
    """The archive in ``raw`` opened after its table of contents was checked, and the
    names that claimed UTF-8 but were read as cp437."""
    try:
        toc = read_toc(raw)
        if toc is not None:
            if toc.entries > limits.max_files:
                raise _too_many(name, toc.entries, limits)
            if toc.size > max(limits.max_files, 1024) * 1024:
                raise SubmissionsError(
                    f"{name} has a table of contents of {_mib(toc.size)}, over 1 KiB per "
                    f"allowed entry (--max-files {limits.max_files:,}): not read"
                )
        try:
            return zipfile.ZipFile(raw), set()
        except UnicodeDecodeError:
            if toc is None:
                raise
            patches, names = misdeclared_utf8(raw, toc)
            archive = zipfile.ZipFile(PatchedFile(raw, patches))
            return archive, {n.decode("cp437") for n in names}
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, NotImplementedError) as exc:
        raise SubmissionsError(f"{name} is not a readable zip file ({exc})") from exc
    except (struct.error, ValueError, EOFError) as exc:
        raise SubmissionsError(f"{name} is not a readable zip file ({exc!r})") from exc


def _member_name(info: zipfile.ZipInfo) -> str:
    """A member's name; a name stored without the UTF-8 flag whose bytes are UTF-8 (as
    many zip tools write them) is read as UTF-8 rather than cp437."""
    if info.flag_bits & 0x800:
        return info.filename
    try:
        return info.filename.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return info.filename


def _skip_reason(info: zipfile.ZipInfo, limits: IntakeLimits) -> str | None:
    """Why a member is not read, from what the zip declares (None: it is read)."""
    if info.compress_type not in _READABLE_METHODS:
        method = _METHOD_NAMES.get(info.compress_type, f"method {info.compress_type}")
        return (
            f"is compressed with {method}, which the grader does not unpack: skipped "
            "(ask for a zip made with ordinary deflate compression)"
        )
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > limits.ratio_from_bytes and ratio > limits.max_ratio:
        return (
            f"expands {ratio:,.0f}-fold when unzipped, over the {limits.max_ratio:,.0f}-fold "
            "limit (--max-ratio; a zip bomb?): skipped"
        )
    if info.file_size > limits.max_file_bytes:
        return _oversized(info.file_size, limits)
    return None


def _read_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: IntakeLimits
) -> tuple[bytes | None, list[str]]:
    """A member's bytes within the limits (None: skipped) and the notes on it."""
    reason = _skip_reason(info, limits)
    if reason is not None:
        return None, [reason]
    try:
        with archive.open(info) as stream:
            content = read_capped(stream, limits.max_file_bytes)
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError, EOFError, zlib.error) as exc:
        reason = first_line(exc, 200)
        return b"", [f"could not be read from the zip ({reason}): read as an empty file"]
    if content is None:
        return None, [
            f"unzips to more than the {_mib(limits.max_file_bytes)} limit for one file "
            f"although it declares {info.file_size:,} bytes (--max-file-mb): skipped"
        ]
    return content, []


def _read_zip(path: Path, limits: IntakeLimits) -> dict[str, FileEntry]:
    """Members of a zip: relative POSIX path -> entry. Nothing is extracted."""
    files: dict[str, FileEntry] = {}
    selected: list[tuple[str, zipfile.ZipInfo, bool]] = []
    with path.open("rb") as raw:
        archive, cp437_names = _open_zip(raw, path.name, limits)
        with archive:
            infos = archive.infolist()
            if len(infos) > limits.max_files:
                raise _too_many(path.name, len(infos), limits)
            for info in infos:
                if info.is_dir():
                    continue
                name = PurePosixPath(_member_name(info).replace("\\", "/"))
                # never trust member names: no absolute paths, no "..", just a relative key
                parts = [p for p in name.parts if p not in ("", ".", "..", "/")]
                if not parts or _is_ignored(PurePosixPath(*parts)):
                    continue
                selected.append((str(PurePosixPath(*parts)), info, info.filename in cp437_names))
            declared = sum(i.file_size for _, i, _ in selected if _skip_reason(i, limits) is None)
            if declared > limits.max_total_bytes:
                raise _too_much(path.name, declared, limits)
            total = 0
            for rel, info, not_utf8 in selected:
                content, notes = _read_member(archive, info, limits)
                total += len(content or b"")
                if total > limits.max_total_bytes:
                    raise _too_much(path.name, total, limits)
                files[rel] = FileEntry(content, ([_not_utf8(rel)] if not_utf8 else []) + notes)
    return files
