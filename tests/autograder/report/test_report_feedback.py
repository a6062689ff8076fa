"""The page written for a notebook that could not be graded: the flags shown as text, and a
policy that lets nothing run; the folder of a student's pages, named by the student's id
and the name the submissions gave (hostile data: one safe path component)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from autograder.course import Course
from autograder.models import SubmissionResult
from autograder.report import copy_feedback, feedback_folder


def test_not_graded_page_is_inert(tmp_path):
    flag = "notebook '<img src=x onerror=alert(1)>.ipynb' is corrupt (scored 0)"
    result = SubmissionResult("eve", "01_hyperplanes", flags=[flag], missing=["01_hyperplanes"])
    assert copy_feedback(Course(tmp_path / "course"), [result], tmp_path / "out") == 1
    page = tmp_path / "out" / "feedback" / "eve" / "01_hyperplanes" / "01_hyperplanes.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), features="html.parser")
    assert soup.find("img") is None and soup.find("script") is None
    assert "onerror=alert(1)" in soup.find("li").get_text()  # shown as text
    policy = soup.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"]
    assert policy.startswith("default-src 'none'") and "script-src" not in policy


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("", "12345"),
        ("doeanna", "12345-doeanna"),
        ("Jane Doe", "12345-Jane-Doe"),
        ("Müller, Jörg", "12345-Müller-Jörg"),
        ("../../etc/passwd", "12345-etc-passwd"),
        ("..\\..\\boot.ini", "12345-boot-ini"),
        ("ev\x1b[31mil\nname\u202e", "12345-ev-31mil-name"),
        ("...", "12345"),
        ("_ . _", "12345"),
        ("x" * 300, "12345-" + "x" * 32),
        ("ü" * 300, "12345-" + "ü" * 32),
    ],
)
def test_a_feedback_folder_names_the_student_in_one_safe_component(name, folder):
    assert feedback_folder("12345", name) == folder


def test_a_feedback_folder_stays_within_a_file_names_bytes():
    folder = feedback_folder("9" * 180, "ü" * 300)  # a long id: the name is cut shorter
    assert folder == "9" * 180 + "-" + "ü" * 9 and len(folder.encode()) == 199


def test_named_students_pages_are_in_their_named_folder(tmp_path):
    result = SubmissionResult("12345", "01_hyperplanes", flags=["x"], missing=["01_hyperplanes"])
    names = {"12345": "../doe anna"}
    assert copy_feedback(Course(tmp_path / "course"), [result], tmp_path / "out", names) == 1
    pages = [p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*.html")]
    assert [str(p) for p in pages] == ["feedback/12345-doe-anna/01_hyperplanes/01_hyperplanes.html"]


def test_not_graded_page_says_what_happened_and_what_to_do(tmp_path):
    corrupt = "notebook '01_hyperplanes.ipynb' is corrupt: not a readable notebook (scored 0)"
    missing = "notebook '02_perceptron_update.ipynb' is missing (scored 0)"
    results = [
        SubmissionResult("eve", "01_hyperplanes", flags=[corrupt], missing=["01_hyperplanes"]),
        SubmissionResult(
            "bob", "02_perceptron_update", flags=[missing], missing=["02_perceptron_update"]
        ),
    ]
    assert copy_feedback(Course(tmp_path / "course"), results, tmp_path / "out") == 2
    feedback = tmp_path / "out" / "feedback"

    def text(path):
        return BeautifulSoup(path.read_text(encoding="utf-8"), features="html.parser").get_text()

    page = text(feedback / "eve" / "01_hyperplanes" / "01_hyperplanes.html")
    assert "01_hyperplanes.ipynb is not a readable notebook" in page
    assert "Download the assignment's release again" in page
    assert "copy your answers from it" in page and "Hand in that notebook again" in page
    assert corrupt in page  # what the grader recorded, as text
    page = text(feedback / "bob" / "02_perceptron_update" / "02_perceptron_update.html")
    assert "Your submission has no notebook 02_perceptron_update.ipynb" in page
    assert "Download the assignment's release again" not in page


def _page(*sources: str) -> bytes:
    images = "".join(f'<img alt="x" src="{src}"/>' for src in sources)
    return f"<!DOCTYPE html><html><body><p>{images}</p></body></html>".encode()


def test_the_files_a_page_shows_come_from_the_release_beside_it(tmp_path, monkeypatch):
    """Issue 44: an image beside the notebook (``![](figure.png)``, ``<img
    src="data/x.png">``) is copied beside the page, from the assignment's release (the
    instructor's, never a file the student handed in), at the path the page names; nothing
    outside the release or the page's folder, nothing larger than the bound."""
    import autograder.report.feedback as feedback

    course = Course(tmp_path / "course")
    release = course.release_dir("a1")
    (release / "data").mkdir(parents=True)
    (release / "figure.png").write_bytes(b"figure")
    (release / "data" / "x y.png").write_bytes(b"x")
    (release / "big.png").write_bytes(b"b" * 200)
    (tmp_path / "course" / "secret.png").write_bytes(b"secret")
    (release / "out.png").symlink_to(tmp_path / "course" / "secret.png")
    handed_in = course.submitted_dir("eve", "a1")
    handed_in.mkdir(parents=True)
    (handed_in / "mine.png").write_bytes(b"the student's")
    pages = course.feedback_dir("eve", "a1")
    pages.mkdir(parents=True)
    (pages / "mine.png").write_bytes(b"the student's")  # as nbgrader copies a submission's
    page = _page(
        "figure.png",
        "./data/x%20y.png",
        "data/x y.png",  # the same file again
        "../secret.png",
        "data/../../secret.png",
        "/etc/passwd",
        "data\\x y.png",
        "out.png",
        "big.png",
        "mine.png",
        "missing.png",
        "n1.html",
        "https://example.org/figure.png",
        "data:image/png;base64,iVBORw0KGgo=",
    )
    (pages / "n1.html").write_bytes(page)
    monkeypatch.setattr(feedback, "ASSET_BYTES", 100)
    result = SubmissionResult("eve", "a1")
    assert copy_feedback(course, [result], tmp_path / "out") == 1
    dest = tmp_path / "out" / "feedback" / "eve" / "a1"
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert files == ["data/x y.png", "figure.png", "n1.html"]
    assert (dest / "figure.png").read_bytes() == b"figure"
    assert not (tmp_path / "out" / "secret.png").exists()
    # the next run's page shows another figure: the old one goes, the page's stays
    (release / "other.png").write_bytes(b"other")
    (pages / "n1.html").write_bytes(_page("other.png"))
    copy_feedback(course, [result], tmp_path / "out")
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*"))
    assert files == ["n1.html", "other.png"]
