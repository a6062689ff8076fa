"""The page written for a notebook that could not be graded: the flags shown as text, and a
policy that lets nothing run."""

from __future__ import annotations

from bs4 import BeautifulSoup

from autograder.course import Course
from autograder.models import SubmissionResult
from autograder.report import copy_feedback


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
