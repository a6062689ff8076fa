"""Release: each assignment's student version and the zip a student is handed
(:mod:`.zips`), with what it holds beside the notebook (:mod:`.student`) and the student
build of linlib in it, without the answers to the exercises (:mod:`.answers`)."""

from autograder.release.student import ReleaseError
from autograder.release.zips import ensure_released, release_course

__all__ = ["ReleaseError", "ensure_released", "release_course"]
