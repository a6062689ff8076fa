"""How the grader words what it reports, in one place: a list cut to its first items and a
count (:func:`listing`, :data:`LISTED`), and an error's message as one line
(:func:`first_line`). A flag, a refusal or a note stays one short line however many items
there are or however long a library's message is."""

from __future__ import annotations

from collections.abc import Iterable

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
