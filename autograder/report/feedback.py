"""The students' feedback pages: nbgrader's feedback HTML copied into the run's output, and
a short page for each notebook that could not be graded (plain text, no scripts allowed),
in a folder per student named by :func:`feedback_folder`: what happened and what the
student can do about it (a corrupt notebook: download the release again, copy the answers
into it, hand it in again), then the flags.

Beside the pages, the files they show (an image beside the notebook, ``![](figure.png)``,
``<img src="data/x.png">``): copied from the assignment's release — the instructor's files,
what the student was given, never a file a student handed in — at the path the page names,
relative to it, when that path stays inside the release and the page's folder, and within
:data:`ASSET_BYTES` (:func:`page_files`)."""

from __future__ import annotations

import contextlib
import html
import logging
import re
import unicodedata
from collections.abc import Iterable, Mapping
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from autograder.course import Course
from autograder.files import sweep_temp_files, write_atomic
from autograder.models import SubmissionResult
from course_common.assets import FEEDBACK_MATHJAX, copy_mathjax, mathjax_available

log = logging.getLogger(__name__)

#: The most bytes of one release file copied beside a submission's pages, and of all of them
#: (per submission): a page that names a larger one shows it missing.
ASSET_BYTES = 20 * 2**20
ASSETS_BYTES = 50 * 2**20
#: The references of a page that name a file it shows: (tag, attribute).
_SHOWN = frozenset({("img", "src"), ("source", "src"), ("video", "src"), ("video", "poster")})
#: Their tags in a page (found first: a page is mostly its figures' base64).
_SHOWN_TAGS = re.compile(rb"<(?:img|source|video)\b[^>]*>", re.IGNORECASE)

_NOT_GRADED = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{title}</title>
<style>body{{max-width:48em;margin:1em auto;padding:0 1em;font-family:sans-serif;\
line-height:1.4;overflow-wrap:anywhere}}</style></head>
<body><h1>{title}</h1><p>This notebook could not be graded and scored 0 points.</p>
{advice}<h2>What the grader recorded</h2>
<ul>{items}</ul></body></html>
"""
#: The most characters of a student's name in a feedback folder's name, and the most bytes
#: of the whole name (a file system's limit is 255)
FOLDER_NAME_CHARACTERS = 32
FOLDER_BYTES = 200

#: A notebook that is not a readable notebook (intake's flag, autograder.intake.prepare).
_CORRUPT = re.compile(r"notebook '(?P<name>[^']*)' is corrupt: ")
#: A notebook the submission does not have.
_MISSING = re.compile(r"notebook '(?P<name>[^']*)' is missing")

_CORRUPT_ADVICE = """<h2>What happened</h2>
<p>The file you handed in as <code>{name}</code> is not a readable notebook: it is damaged or
cut off (an upload that broke off, a copy that was not finished, the file edited or saved
by another program), so none of your answers in it could be read.</p>
<h2>What to do</h2>
<ol>
<li>Download the assignment's release again (the zip your instructor handed out) and unpack
it in a new folder.</li>
<li>Open your own copy of the notebook in JupyterLab. If it opens, copy your answers from it
into the fresh notebook, cell by cell; if it does not open either, write them again in the
fresh notebook.</li>
<li>Run the fresh notebook from the top, click <strong>Validate</strong>, and save it.</li>
<li>Hand in that notebook again, named <code>{name}</code>, and tell your instructor that
you did.</li>
</ol>
"""

_MISSING_ADVICE = """<h2>What happened</h2>
<p>Your submission has no notebook <code>{name}</code>, so there was nothing of this
notebook to grade.</p>
<h2>What to do</h2>
<p>Hand in the notebook again, named <code>{name}</code> as in the assignment's release,
and tell your instructor that you did.</p>
"""


def _advice(notebook: str, flags: Iterable[str]) -> str:
    """What happened to ``notebook`` and what the student can do, in their words (HTML,
    escaped), from the flag intake wrote for it; "" for another reason."""
    wanted = f"{notebook}.ipynb"
    for flag in flags:
        for pattern, advice in ((_CORRUPT, _CORRUPT_ADVICE), (_MISSING, _MISSING_ADVICE)):
            match = pattern.match(str(flag))
            if match is not None and match["name"] == wanted:
                return advice.format(name=html.escape(wanted))
    return ""


class _Shown(HTMLParser):
    """The URLs of the files a page shows (:data:`_SHOWN`), in the page's order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if (tag, name) in _SHOWN and value:
                self.urls.append(value)

    handle_startendtag = handle_starttag


def relative_file(url: str) -> PurePosixPath | None:
    """The file a page's ``url`` names relative to the page's folder, or None when it names
    none there: a URL with a scheme or a host (``data:``, ``https://``), an absolute path,
    a path that climbs out (``..``), a backslash or a control character, nothing."""
    parts = urlsplit(url.strip())
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    if path.startswith("/") or "\\" in path or any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None
    names = [name for name in path.split("/") if name not in ("", ".")]
    if not names or ".." in names:
        return None
    return PurePosixPath(*names)


def page_files(release: Path, pages: Mapping[str, bytes]) -> dict[str, Path]:
    """The files ``pages`` (name -> HTML) show that the assignment's ``release`` holds:
    relative path -> the release's file. Only regular files inside the release (a link
    out of it is none), no page's own name, each within :data:`ASSET_BYTES` and all within
    :data:`ASSETS_BYTES` (a larger one is left out, said in the log)."""
    try:
        root = release.resolve(strict=True)
    except OSError:
        return {}
    found: dict[str, Path] = {}
    total = 0
    for content in pages.values():
        parser = _Shown()
        for tag in _SHOWN_TAGS.findall(content):
            parser.feed(tag.decode("utf-8", errors="replace"))
        parser.close()
        for url in parser.urls:
            relative = relative_file(url)
            if relative is None or relative.as_posix() in found or relative.as_posix() in pages:
                continue
            name = relative.as_posix()
            try:
                real = (root / relative).resolve(strict=True)
            except (OSError, RuntimeError):  # missing, or a loop of links
                continue
            if not real.is_relative_to(root) or not real.is_file():
                continue
            size = real.stat().st_size
            if size > ASSET_BYTES or total + size > ASSETS_BYTES:
                log.warning(
                    "%s: not copied beside the feedback pages (%d bytes; at most %d a file, "
                    "%d a submission)",
                    name,
                    size,
                    ASSET_BYTES,
                    ASSETS_BYTES,
                )
                continue
            found[name] = real
            total += size
    return found


def feedback_folder(student: str, name: str = "") -> str:
    """The folder of a student's feedback pages in a run's output: the student id, and,
    when the submissions named the student (an LMS's file names), a dash and the name's
    words (``12345-doeanna``, ``4711-Jane-Doe``): its letters and digits, every other
    character (a path separator, a dot, a space, a control character) a dash between
    words, at most :data:`FOLDER_NAME_CHARACTERS` of them."""
    words = re.findall(r"[^\W_]+", unicodedata.normalize("NFC", name))
    slug = "-".join(words)[:FOLDER_NAME_CHARACTERS].strip("-")
    while slug and len(f"{student}-{slug}".encode()) > FOLDER_BYTES:
        slug = slug[:-1].rstrip("-")
    return f"{student}-{slug}" if slug else student


def copy_feedback(
    course: Course,
    results: Iterable[SubmissionResult],
    out_dir: Path,
    names: Mapping[str, str] | None = None,
) -> int:
    """Copy each graded submission's feedback HTML to ``out_dir/feedback/<folder>/
    <assignment>/<notebook>.html`` (the folder: :func:`feedback_folder` of the student and
    of ``names``, student -> name as the submissions say it), the files its pages show
    from the assignment's release beside them (:func:`page_files`), and write a short page
    for each notebook that could not be graded (missing or corrupt) saying why; returns how
    many pages were written. MathJax, when installed, is copied once to
    ``out_dir/feedback/_mathjax/``.

    Each file is the old one or the new one, never a torn one
    (:func:`autograder.files.write_atomic`); a page or file of an earlier run that this run
    has none of is removed once the new ones are in place, and so is the temporary file of
    a run killed while it wrote a page."""
    count = 0
    releases: dict[str, Path] = {}
    for result in results:
        src = course.feedback_dir(result.student, result.assignment)
        folder = feedback_folder(result.student, (names or {}).get(result.student, ""))
        dest = out_dir / "feedback" / folder / result.assignment
        pages: dict[str, bytes] = {}
        if src.is_dir():
            for page in sorted(src.glob("*.html")):
                pages[page.name] = page.read_bytes()
        for notebook in result.missing:
            name = f"{notebook}.html"
            if name in pages:
                continue
            items = "".join(f"<li>{html.escape(flag)}</li>" for flag in result.flags)
            title = html.escape(f"{result.assignment}: {notebook} ({result.student})")
            advice = _advice(notebook, result.flags)
            text = _NOT_GRADED.format(title=title, advice=advice, items=items)
            pages[name] = text.encode("utf-8")
        release = releases.setdefault(result.assignment, course.release_dir(result.assignment))
        shown = page_files(release, pages)
        if pages:
            dest.mkdir(parents=True, exist_ok=True)
        for name, content in pages.items():
            write_atomic(dest / name, content)
            count += 1
        for name, file in shown.items():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            write_atomic(dest / name, file.read_bytes())
        if dest.is_dir():
            _remove_others(dest, {*pages, *shown})
            with contextlib.suppress(OSError):
                dest.rmdir()  # only when empty: no page for this submission any more
    if count and mathjax_available():
        # The pages load MathJax from feedback/_mathjax/ (see autograder.grading's feedback_config).
        copy_mathjax(out_dir / "feedback" / FEEDBACK_MATHJAX)
    return count


def _remove_others(dest: Path, kept: set[str]) -> None:
    """Remove the files under ``dest`` (a submission's folder of pages) whose path in it is
    not ``kept`` (but for hidden ones), and the temporary files of a writer killed while
    it wrote a page there (:func:`autograder.files.sweep_temp_files`: hidden, named as
    ``write_atomic`` names them, their writer ended), then the folders left empty."""
    sweep_temp_files(dest, recursive=True)
    for path in sorted(dest.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        name = path.relative_to(dest).as_posix()
        if path.is_symlink() or path.is_file():
            if name not in kept and not path.name.startswith("."):
                path.unlink()
        elif path.is_dir():
            with contextlib.suppress(OSError):
                path.rmdir()  # only when empty
