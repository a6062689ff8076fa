"""Files the grader writes whole or not at all, and the one digest of a folder's files.

:func:`write_atomic` is the one way an output file (``grades.csv``, ``results.json``,
``summary.md``, a feedback page, the course's ``nbgrader_config.py``) is written: into a
temporary file beside it (``.<name>.<random>.tmp``, in the same folder, so on the same file
system), flushed to disk, then renamed over the old one with ``os.replace``. Whatever stops
the writer — a full disk, SIGKILL, a power cut — the file is the old one or the new one,
never a torn mix; a failed write removes its temporary file (on a full disk it would hold
the space the next attempt needs). A writer killed between the two steps leaves its hidden
temporary file behind, nothing else.

:func:`append_line` is the ledger's append: one ``write`` of the whole line at the file's
end, and on a failure (a full disk writes part of it) the file cut back to its old length,
so no half line is left for the next run to read.

Written by hand: the stdlib's ``tempfile`` and ``os.replace`` are the whole of it
(``atomicwrites``, the package that did this, is no longer maintained).

:func:`folder_digest` hashes what a result was made from (the grader's code, an
assignment's source, what a release zip is built of): every file's name and bytes, the
caches Python and Jupyter write beside them aside (:data:`CACHES`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: What a digest passes over: folders of caches (Python's bytecode, Jupyter's checkpoints)
#: and bytecode files; they change without their source changing.
CACHES = frozenset({"__pycache__", ".ipynb_checkpoints"})
CACHE_SUFFIXES = frozenset({".pyc"})


def write_atomic(path: str | os.PathLike, data: bytes | str, *, mode: int = 0o644) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` so that ``path`` is always either its old
    content or the new one (see the module docstring); returns the path. The folder must
    exist. ``mode``: the new file's permissions."""
    path = Path(path)
    content = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)
    return path


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append ``line`` (a newline is added) to ``path`` durably, whole or not at all: when the
    file's last line is torn (a writer killed mid-line by an older version, a crash of the
    machine), the new line starts on a line of its own; when the write fails, the file is
    cut back to its old length and the error raised."""
    path = Path(path)
    body = line.rstrip("\n").encode("utf-8") + b"\n"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            body = b"\n" + body
        try:
            written = os.write(fd, body)
            if written != len(body):  # a full disk takes part of it
                raise OSError(28, os.strerror(28), str(path))
            os.fsync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (the folder's entry flushed); best effort."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def folder_files(folder: Path) -> list[Path]:
    """Every file under ``folder``, caches aside (:data:`CACHES`), sorted."""
    return sorted(
        path
        for path in Path(folder).rglob("*")
        if path.is_file()
        and CACHES.isdisjoint(path.relative_to(folder).parts)
        and path.suffix not in CACHE_SUFFIXES
    )


def files_digest(named: Iterable[tuple[str, Path]]) -> str:
    """SHA-256 of files, each as its name, a NUL and its bytes, in the order given."""
    h = hashlib.sha256()
    for name, path in named:
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def folder_digest(*folders: Path) -> str:
    """SHA-256 of every file under ``folders`` (caches aside), each named relative to its
    folder: a file renamed, changed, added or removed changes it."""
    return files_digest(
        (path.relative_to(folder).as_posix(), path)
        for folder in folders
        for path in folder_files(folder)
    )
