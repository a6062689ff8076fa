"""What the autograder and the lecture share, and neither owns: where the repository's
parts are (:mod:`course_common.paths`), the browser assets pages
load offline (:mod:`course_common.assets`: MathJax from ``node_modules/`` and the nbconvert
template that loads it from a local copy) and the format of the written answers' rubric in
the course's source notebooks (:mod:`course_common.rubric`) and nbgrader's solution markers
in them (:mod:`course_common.solutions`).

It imports neither ``autograder`` nor ``lecture`` (the import contract in
``pyproject.toml`` checks it).
"""
