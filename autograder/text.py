"""How the grader words what it reports, in one place: a list cut to its first items and a
count (:func:`listing`, :data:`LISTED`), an error's message as one line
(:func:`first_line`), a folder or file the instructor named (:func:`shown_path`), and a
moment in time (:func:`clock_time`, :func:`iso_time`). A flag, a
refusal or a note stays one short line however many items there are or however long a
library's message is.

Times have one convention in every output (flags, ``summary.md``, ``grades.csv``, the
feedback pages): on the course's clock (course.toml's ``timezone``, else UTC), marked with
their offset from UTC as ISO 8601 writes it: ``2025-10-24 23:59 +02:00 CEST`` where people
read them, ``2025-10-24T23:59:00+02:00`` in ``grades.csv``'s columns."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

#: How many items a flag or a message names before it counts the rest.
LISTED = 5


def listing(items: Iterable[object], limit: int = LISTED) -> str:
    """The first ``limit`` items, comma-separated, then "and N more" for the rest."""
    names = [str(item) for item in items]
    text = ", ".join(names[:limit])
    return text + (f" and {len(names) - limit} more" if len(names) > limit else "")


def first_line(error: BaseException | str, limit: int | None = None) -> str:
    """The first line of ``error``'s message that is not blank, stripped and cut to
    ``limit`` characters; an exception whose message is empty is named by its class."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__ if isinstance(error, BaseException) else ""
    return lines[0] if limit is None else lines[0][:limit]


def shown_path(path: str | os.PathLike, here: str | os.PathLike | None = None) -> str:
    """``path`` as a message names it: relative to ``here`` (default the current folder)
    when it lies in it or at most two folders above (``out``, ``../course``), else as it
    is (another place of the machine, the instructor's own)."""
    relative = os.path.relpath(Path(path).resolve(), Path(here or Path.cwd()).resolve())
    return relative if Path(relative).parts[:3].count("..") < 3 else str(path)


def _offset(moment: datetime) -> str:
    """``+02:00``: an aware moment's offset from UTC, as ISO 8601 writes it."""
    delta = moment.utcoffset() or timedelta(0)
    minutes = abs(round(delta.total_seconds() / 60))
    sign = "-" if delta < timedelta(0) else "+"
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def clock_time(moment: datetime, zone: tzinfo) -> str:
    """``2025-10-24 23:59 +02:00 CEST``: an aware ``moment`` on the clock of ``zone``, to
    the minute, with its offset from UTC and the zone's abbreviation when it has a name
    (``CEST``, ``UTC``; a zone named by its offset, ``+03``, is not named twice)."""
    local = moment.astimezone(zone)
    name = local.tzname() or ""
    named = f" {name}" if name.isalpha() else ""
    return f"{local:%Y-%m-%d %H:%M} {_offset(local)}{named}"


def iso_time(moment: datetime, zone: tzinfo) -> str:
    """``2025-10-24T23:59:00+02:00``: an aware ``moment`` on the clock of ``zone`` in ISO
    8601 with its offset (to the second, or the microsecond when it has any)."""
    return moment.astimezone(zone).isoformat()
