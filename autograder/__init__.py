"""The autograder: ``python -m autograder release|grade|demo|export`` (:mod:`autograder.api`
holds the use cases; the README's "Layout" lists the layers).

The folders a run uses unless told otherwise, the one home of these defaults for the
command line and the use cases (kept here, where importing them costs nothing)."""

from pathlib import Path

#: The nbgrader course folder a run builds and uses.
COURSE_DIR = Path("course")
#: Where a grading run writes results.json, grades.csv, feedback/ and summary.md.
OUT_DIR = Path("grading-out")
#: The demo's own course folder and outputs: never the instructor's course/.
DEMO_COURSE_DIR = Path("demo") / "course"
DEMO_OUT_DIR = Path("demo") / "grading-out"
