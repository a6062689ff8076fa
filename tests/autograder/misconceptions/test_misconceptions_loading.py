"""autograder.misconceptions.loading: a catalogue read from its misconceptions.toml, and
what is wrong with one that cannot be read."""

from __future__ import annotations

import pytest

from autograder.misconceptions import CatalogueError, load_catalogue


def _write(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "misconceptions.toml").write_text(text, encoding="utf-8")
    return folder


GOOD = """
[f]
timeout_hint = "a loop never ends"

[[f.misconception]]
id = "doubles"
says = "you double x"
hint = "look at §1"

  [[f.misconception.probe]]
  call = "f(1)"
  rule = "1"
  answer = "2"
"""


def test_load_reads_a_catalogue(tmp_path):
    found = load_catalogue(_write(tmp_path / "09_x", GOOD))
    assert found is not None and found.assignment == "09_x"
    entry = found.exercises["f"]
    assert entry.timeout_hint == "a loop never ends"
    assert [m.id for m in entry.misconceptions] == ["doubles"]
    assert entry.calls() == ["f(1)"]
    assert load_catalogue(tmp_path / "nothing") is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('call = "f(1)"', 'call = "g(1)"'), "calls g, not f"),
        (('answer = "2"', 'answer = "open(2)"'), "not an answer"),
        (('id = "doubles"', 'id = "two words"'), "not a fresh identifier"),
        (('says = "you double x"', 'says = ""'), "says must be a non-empty string"),
        (("timeout_hint", "colour"), "unknown keys"),
        (("[f]", "[f"), "misconceptions.toml"),
    ],
)
def test_load_says_what_is_wrong(tmp_path, change, message):
    old, new = change
    with pytest.raises(CatalogueError, match=message):
        load_catalogue(_write(tmp_path / "09_x", GOOD.replace(old, new)))
