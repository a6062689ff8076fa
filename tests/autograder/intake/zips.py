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
    directory. Only the name fields are patched (found through the zip's own offsets), so
    the contents may hold any bytes, "é" among them."""
    write_zip(path, members)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        central = archive.start_dir
    spans = []
    for info in infos:  # local header: 30 fixed bytes, then the name
        spans.append(
            (info.header_offset + 30, int.from_bytes(data[info.header_offset + 26 :][:2], "little"))
        )
    offset = central
    for _ in infos:  # central directory entry: 46 fixed bytes, then the name
        name_len, extra_len, comment_len = (
            int.from_bytes(data[offset + at :][:2], "little") for at in (28, 30, 32)
        )
        spans.append((offset + 46, name_len))
        offset += 46 + name_len + extra_len + comment_len
    encoded = "é".encode()
    for start, length in spans:
        name = bytes(data[start : start + length])
        data[start : start + length] = name.replace(encoded, b"\xff\xfe")
    path.write_bytes(bytes(data))
    return path
