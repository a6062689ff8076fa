"""Release: each assignment's student version and the zip a student is handed
(:mod:`.zips`), with what it holds beside the notebook (:mod:`.student`)."""

from autograder.release.student import ReleaseError
from autograder.release.zips import ensure_released, release_course

__all__ = ["ReleaseError", "ensure_released", "release_course"]
