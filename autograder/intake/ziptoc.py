"""A zip's table of contents read raw, before :mod:`zipfile` parses it.

Two things the standard library cannot be asked safely: how many entries an archive
declares (``zipfile`` builds an object per entry as it opens the archive, so a table of
millions is refused here first), and which entries claim a UTF-8 name (general-purpose
flag bit 11) whose bytes are not UTF-8 (``zipfile`` raises ``UnicodeDecodeError`` on those
while opening the archive). For the latter, :class:`PatchedFile` shows ``zipfile`` the same
archive with that flag cleared on exactly those entries (central directory and local
header), so their names are read as cp437, zip's historical encoding, and every byte of
every name is kept.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass
from typing import BinaryIO

_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_UTF8_FLAG = 0x800
_EOCD_SIZE = 22
_CENTRAL_SIZE = 46


@dataclass(frozen=True)
class TableOfContents:
    """What the end-of-central-directory record of a zip declares."""

    entries: int  # entries in the central directory
    size: int  # bytes of the central directory
    start: int  # where the central directory starts in the file
    concat: int  # bytes before the archive proper (a self-extracting stub), else 0


def read_toc(fp: BinaryIO) -> TableOfContents | None:
    """The archive's declared entry count and central directory (None: not a zip)."""
    fp.seek(0, 2)
    filesize = fp.tell()
    tail_len = min(filesize, _EOCD_SIZE + 0xFFFF)
    fp.seek(filesize - tail_len)
    tail = fp.read(tail_len)
    pos = tail.rfind(_EOCD)
    if pos < 0 or len(tail) - pos < _EOCD_SIZE:
        return None
    eocd_at = filesize - tail_len + pos
    fields = struct.unpack("<4s4H2LH", tail[pos : pos + _EOCD_SIZE])
    entries, size, offset = fields[4], fields[5], fields[6]
    end = eocd_at
    if entries == 0xFFFF or size == 0xFFFFFFFF or offset == 0xFFFFFFFF:
        # zip64: the real numbers are in the zip64 end record, just before its locator
        if eocd_at >= 20 + 56:
            fp.seek(eocd_at - 20)
            if fp.read(4) == _EOCD64_LOCATOR:
                fp.seek(eocd_at - 20 - 56)
                record = fp.read(56)
                if record[:4] == _EOCD64:
                    *_, entries, size, offset = struct.unpack("<4sQ2H2L4Q", record)
                    end = eocd_at - 20 - 56
    concat = max(end - size - offset, 0)
    return TableOfContents(entries, size, offset + concat, concat)


def _zip64_header_offset(extra: bytes, file_size: int, compress_size: int) -> int | None:
    """The local header offset from a zip64 extra field (None if absent)."""
    i = 0
    while i + 4 <= len(extra):
        tag, length = struct.unpack("<HH", extra[i : i + 4])
        if tag == 0x0001:
            data = extra[i + 4 : i + 4 + length]
            skip = 8 * (file_size == 0xFFFFFFFF) + 8 * (compress_size == 0xFFFFFFFF)
            if len(data) >= skip + 8:
                return struct.unpack("<Q", data[skip : skip + 8])[0]
            return None
        i += 4 + length
    return None


def misdeclared_utf8(fp: BinaryIO, toc: TableOfContents) -> tuple[dict[int, int], list[bytes]]:
    """Entries whose UTF-8 flag is set on a name that is not UTF-8.

    Returns the byte patches that clear the flag (file offset -> new byte) in the central
    directory and in each such entry's local header, and the raw names concerned.
    """
    patches: dict[int, int] = {}
    names: list[bytes] = []
    fp.seek(toc.start)
    at = toc.start
    for _ in range(toc.entries):
        record = fp.read(_CENTRAL_SIZE)
        if len(record) < _CENTRAL_SIZE or record[:4] != _CENTRAL:
            break
        fields = struct.unpack("<4s6H3L5H2L", record)
        flags, compress_size, file_size = fields[3], fields[8], fields[9]
        name_len, extra_len, comment_len, header_offset = (
            fields[10],
            fields[11],
            fields[12],
            fields[16],
        )
        name = fp.read(name_len)
        extra = fp.read(extra_len)
        fp.seek(comment_len, 1)
        if flags & _UTF8_FLAG:
            try:
                name.decode("utf-8")
            except UnicodeDecodeError:
                names.append(name)
                patches[at + 9] = (flags & ~_UTF8_FLAG) >> 8
                if header_offset == 0xFFFFFFFF:
                    header_offset = _zip64_header_offset(extra, file_size, compress_size) or 0
                local = header_offset + toc.concat
                here = fp.tell()
                fp.seek(local)
                header = fp.read(8)
                fp.seek(here)
                if len(header) == 8 and header[:4] == _LOCAL:
                    patches[local + 7] = header[7] & ~(_UTF8_FLAG >> 8)
        at += _CENTRAL_SIZE + name_len + extra_len + comment_len
    return patches, names


class PatchedFile:
    """A read-only binary file seen through byte patches (offset -> byte), for zipfile."""

    def __init__(self, raw: BinaryIO, patches: dict[int, int]) -> None:
        self._raw = raw
        self._patches = patches
        self._offsets = sorted(patches)

    def read(self, n: int = -1) -> bytes:
        start = self._raw.tell()
        data = self._raw.read(n)
        first = bisect.bisect_left(self._offsets, start)
        last = bisect.bisect_left(self._offsets, start + len(data))
        hits = self._offsets[first:last]
        if not hits:
            return data
        patched = bytearray(data)
        for offset in hits:
            patched[offset - start] = self._patches[offset]
        return bytes(patched)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def seekable(self) -> bool:
        return True

    def close(self) -> None:
        self._raw.close()
