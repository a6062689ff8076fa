"""results.json (autograder.report.results)."""

from __future__ import annotations

import json

from autograder.course import ManualPending, Totals
from autograder.models import SubmissionResult
from autograder.report import results_data, write_results


def test_results_json_is_the_runs_results_as_plain_data(tmp_path):
    """results.json: sorted by assignment then student, every test's score and max score."""
    results = [
        SubmissionResult("zoe", "02_b", {"t_hidden": (0.0, 2.0), "t_visible": (1.0, 1.0)}),
        SubmissionResult("al", "02_b", {}, flags=["corrupt notebook"], ok=False, missing=["02_b"]),
        SubmissionResult("zoe", "01_a", {"u_visible": (3.0, 3.0)}),
    ]
    data = results_data(results, unmatched=["bob/?"])
    assert data["format"] == 2 and data["unmatched"] == ["bob/?"]
    keys = [(s["assignment"], s["student"]) for s in data["submissions"]]
    assert keys == [("01_a", "zoe"), ("02_b", "al"), ("02_b", "zoe")]
    zoe = data["submissions"][2]
    assert zoe["tests"] == {
        "t_hidden": {"score": 0.0, "max_score": 2.0},
        "t_visible": {"score": 1.0, "max_score": 1.0},
    }
    # no gradebook's totals given: the autograded tests' own
    assert (zoe["score"], zoe["max_score"], zoe["ok"], zoe["flags"]) == (1.0, 3.0, True, [])
    worth = {("02_b", "zoe"): Totals(1.0, 7.0, 4.0, ManualPending(1, 4.0))}
    zoe = results_data(results, totals=worth)["submissions"][2]
    assert (zoe["score"], zoe["max_score"]) == (1.0, 7.0)
    assert zoe["manual_pending"] == {"answers": 1, "points": 4.0}
    al = data["submissions"][1]
    assert (al["ok"], al["flags"], al["missing"]) == (False, ["corrupt notebook"], ["02_b"])
    path = write_results(results, tmp_path / "results.json", ["bob/?"])
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
