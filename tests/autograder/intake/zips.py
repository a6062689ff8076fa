"""Zips for the intake tests, built in the test: plain ones and ones whose names claim UTF-8
without being UTF-8 (which :mod:`zipfile` cannot write by itself)."""

from __future__ import annotations

import zipfile
from pathlib import Path


def write_zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    """A zip of ``members`` (name -> bytes)."""
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def write_zip_with_invalid_utf8_names(path: Path, members: dict[str, bytes]) -> Path:
    """A zip whose names containing "é" get two bytes that are not UTF-8 (0xFF 0xFE) instead,
    while the entry keeps its UTF-8 flag (bit 11), in the local header and the central
    directory (the contents must not contain "é")."""
    write_zip(path, members)
    data = path.read_bytes()
    if data.count("é".encode()) != 2 * sum("é" in name for name in members):
        raise ValueError("'é' also occurs outside the names")
    path.write_bytes(data.replace("é".encode(), b"\xff\xfe"))
    return path
