"""autograder.text: a list cut to its first items and a count, an error's message as one
line."""

from __future__ import annotations

from autograder.text import LISTED, first_line, listing


def test_listing_names_the_first_items_and_counts_the_rest():
    assert listing([]) == ""
    assert listing(["a", "b"]) == "a, b"
    assert listing(range(LISTED)) == "0, 1, 2, 3, 4"
    assert listing(range(LISTED + 2)) == "0, 1, 2, 3, 4 and 2 more"
    assert listing("abc", 1) == "a and 2 more"


def test_first_line_of_an_error():
    assert first_line(ValueError("\n  bad value  \nat line 3")) == "bad value"
    assert first_line(ValueError("x" * 300), 80) == "x" * 80
    assert first_line(KeyboardInterrupt()) == "KeyboardInterrupt"
    assert first_line("") == ""
