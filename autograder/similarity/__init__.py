"""Similarity: which answers of a class look alike, exercise by exercise, offline.

Only what students wrote is compared (:mod:`.answers`: the solution cells less the
release's stub), with copydetect's fingerprints and the notebook's own code as boilerplate
(:mod:`.detect`), exercise by exercise in worker processes (:mod:`.compare`); the report is
``similarity.html`` and ``similarity.csv`` and one line of ``summary.md`` (:mod:`.report`).
A score is a reason to look at a pair, never a finding.
"""

from autograder.similarity.answers import MAX_ANSWER_CHARS, Answer, Exercise, student_answers
from autograder.similarity.compare import (
    NotebookSource,
    SimilarityRun,
    compare_class,
    course_notebooks,
)
from autograder.similarity.detect import ExerciseResult, Pair, Settings, compare_exercise
from autograder.similarity.report import (
    CSV_COLUMNS,
    CSV_NAME,
    HTML_NAME,
    report_class,
    summary_line,
    write_similarity,
)

__all__ = [
    "CSV_COLUMNS",
    "CSV_NAME",
    "HTML_NAME",
    "MAX_ANSWER_CHARS",
    "Answer",
    "Exercise",
    "ExerciseResult",
    "NotebookSource",
    "Pair",
    "Settings",
    "SimilarityRun",
    "compare_class",
    "compare_exercise",
    "course_notebooks",
    "report_class",
    "student_answers",
    "summary_line",
    "write_similarity",
]
