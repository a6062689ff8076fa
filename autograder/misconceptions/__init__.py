"""The catalogue of misconceptions: per exercise, the typical wrong ideas students have, each
with a probe that shows it, and the diagnosis that matches a student's answers against them.

The catalogue of an assignment is a data file beside its notebook,
``<assignment>/misconceptions.toml`` of the course's source (course content, reviewed like
the notebooks; the release leaves it out of the students' folder). A course without one is
graded with the diagnosis off. One table per exercise (the graded
function, named like its answer cell), then one entry per misconception::

    [classify]
    timeout_hint = "..."            # optional: what a hang of this function usually means

    [[classify.misconception]]
    id = "tie_is_positive"
    says = "you treat a point on the plane (a = 0) as a positive point"
    hint = "§3 says which label a = 0 gets: compare the comparison in your code with it"

      [[classify.misconception.probe]]
      call = "classify([[1, 1], [3, 1]], [1, -1], 0)"
      rule = "array([-1, 1])"       # what the exercise's rule gives
      answer = "array([1, 1])"      # what this misconception gives

A probe is one call (a few probes make a misconception's probe); on it the misconception's
answer differs from the rule's and from every other catalogued misconception's answer of the
exercise (``tests/notebooks/test_notebooks_misconceptions.py`` checks this with the labelled
sample answers of :mod:`autograder.samples`, and checks the rule against the notebook's
solution).

**The notation** of calls and answers is a small part of Python's expression syntax, read
with :mod:`ast`, never evaluated:

- values (a call's arguments): numbers (``1/3``, ``sqrt(2)``, ``inf``, ``nan``), strings,
  ``True``, ``False``, ``None``, lists, tuples; ``array(x)`` (a NumPy array;
  ``array(x, float)`` with a dtype), ``log(x)`` (natural logarithms, an array for a list),
  ``linlib.name`` (a public function of linlib) and ``partial(f, ...)``;
- answers (patterns): a number matches any number (not a bool) within the tolerance of
  ``linlib.grading.assert_close``; ``True``/``False`` only a bool; a list or tuple any
  sequence (a NumPy array too) whose items match; ``array(x)`` anything NumPy reads as an
  array of that shape and those values. Stricter forms say where the type is the point:
  ``int(3)``, ``float(3)``, ``list(x)``, ``tuple(x)``, ``ndarray(x)`` (a NumPy array),
  ``array(x, float)`` (a NumPy array of that dtype kind: ``float``, ``int``, ``bool``,
  ``str``). ``raises(ValueError)``: the call raised it. ``given(w)``: the very object passed
  as ``w``. ``anything``. ``shuffled(x)``: the items of ``x`` in another order. For (w, b)
  that must put points on their sides:
  ``classifies(X, y)`` (every ``y·(w·x + b) > 0``) and ``ties(X, y)`` (all ``>= 0``, one
  ``= 0``);
- ``changes = {w = "..."}`` in a probe: the argument ``w`` after the call (it was changed
  in place); the rule changes no argument, and returns none of its arguments as itself.

:func:`diagnose` runs an exercise's probes through a caller-supplied ``observe`` (the
re-check calls the student's function in the sandboxed kernel,
:mod:`autograder.recheck.diagnosis`; the tests call sample answers here), and reports the
misconception whose probe the answers match, or else the smallest probe on which the answer
differs from the rule — never a guess.

The package's modules, one job each: the notation read and written (:mod:`.notation`), what a
call did (:mod:`.observation`), the answers' patterns (:mod:`.patterns`), a catalogue's
entries (:mod:`.catalogue`) and their loading from ``misconceptions.toml``
(:mod:`.loading`), an exercise's test cells (:mod:`.cells`), and the diagnosis
(:mod:`.matching`).
"""

from autograder.misconceptions.catalogue import Catalogue, Exercise, Misconception, Probe
from autograder.misconceptions.cells import call_options, exercise_of
from autograder.misconceptions.loading import (
    CATALOGUE,
    CatalogueError,
    load_catalogue,
    notebook_signatures,
    signatures,
)
from autograder.misconceptions.matching import Diagnosis, Unanswered, diagnose
from autograder.misconceptions.notation import parse_call, parse_value, render
from autograder.misconceptions.observation import Observation, observe_call
from autograder.misconceptions.patterns import Pattern, parse_pattern

__all__ = [
    "CATALOGUE",
    "Catalogue",
    "CatalogueError",
    "Diagnosis",
    "Exercise",
    "Misconception",
    "Observation",
    "Pattern",
    "Probe",
    "Unanswered",
    "call_options",
    "diagnose",
    "exercise_of",
    "load_catalogue",
    "notebook_signatures",
    "observe_call",
    "parse_call",
    "parse_pattern",
    "parse_value",
    "render",
    "signatures",
]
