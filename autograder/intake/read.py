"""Reading the files of a class's submissions from a folder or a zip, without extracting
anything: every regular file's relative POSIX path mapped to its bytes (None for a file
over :data:`MAX_FILE_BYTES`). Which student and notebook a file belongs to is the
layouts' job (:mod:`autograder.intake.layouts`)."""

from __future__ import annotations

import zipfile
from pathlib import Path, PurePosixPath

from autograder.models import SubmissionsError

#: Largest file read from a submission (anything bigger is flagged and skipped).
MAX_FILE_BYTES = 50 * 1024 * 1024

_IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints", ".DS_Store"}


def read_files(path: Path) -> dict[str, bytes | None]:
    """Every file of a folder or zip: relative POSIX path -> bytes (None if too big).

    Raises
    ------
    SubmissionsError
        ``path`` does not exist, is not a readable zip, or holds no file.
    """
    if path.is_dir():
        files = _read_tree(path)
    elif path.is_file():
        files = _read_zip(path)
    else:
        raise SubmissionsError(f"no such file or folder: {path}")
    if not files:
        raise SubmissionsError(f"no files found in {path}")
    return files


def _is_ignored(path: PurePosixPath) -> bool:
    return any(part in _IGNORED_PARTS or part.startswith("._") for part in path.parts)


def _read_tree(root: Path) -> dict[str, bytes | None]:
    """Every regular file under ``root``: relative POSIX path -> bytes (None if too big)."""
    files: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        rel = PurePosixPath(path.relative_to(root).as_posix())
        if _is_ignored(rel):
            continue
        files[str(rel)] = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else None
    return files


def _read_zip(path: Path) -> dict[str, bytes | None]:
    """Members of a zip: relative POSIX path -> bytes (None if too big). Nothing is extracted."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SubmissionsError(f"{path} is not a readable zip file ({exc})") from exc
    files: dict[str, bytes | None] = {}
    with archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            name = PurePosixPath(info.filename.replace("\\", "/"))
            # never trust member names: no absolute paths, no "..", just a relative key
            parts = [p for p in name.parts if p not in ("", ".", "..", "/")]
            if not parts:
                continue
            rel = PurePosixPath(*parts)
            if _is_ignored(rel):
                continue
            if info.file_size > MAX_FILE_BYTES:
                files[str(rel)] = None
                continue
            try:
                files[str(rel)] = archive.read(info)
            except (zipfile.BadZipFile, OSError, RuntimeError, ValueError):
                files[str(rel)] = b""  # unreadable member: graded as a corrupt file
    return files
