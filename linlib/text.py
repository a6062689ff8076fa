"""A small two-class text corpus and bag-of-words features for notebook 04.

The corpus (``linlib/data/messages.tsv``) is synthetic: a few hundred short messages
written by ``linlib/data/make_messages.py`` from templates, labelled ``ham`` (ordinary)
or ``spam``. By the course's label rule the classes sort as ``["ham", "spam"]``, so spam
is the +1 class.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from typing import Any

import numpy as np

# CountVectorizer and train_test_split are imported inside the functions: their modules
# are needed in notebook 04 only (linlib's estimators import scikit-learn's core anyway).

__all__ = ["bag_of_words", "load_messages", "train_test_split_messages"]


def load_messages() -> tuple[list[str], np.ndarray]:
    """The course's synthetic corpus of short messages.

    Returns
    -------
    texts : list of str
        The messages, in the file's (fixed) order.
    labels : ndarray of str, shape (n_messages,)
        ``"ham"`` or ``"spam"``; ham outnumbers spam about 2 to 1.

    Examples
    --------
    >>> import linlib
    >>> texts, labels = linlib.load_messages()
    >>> len(texts), sorted(set(labels.tolist()))
    (350, ['ham', 'spam'])

    Introduced in 04 — Naive Bayes is a linear classifier.
    """
    source = resources.files("linlib").joinpath("data", "messages.tsv")
    texts: list[str] = []
    labels: list[str] = []
    lines = source.read_text(encoding="utf-8").splitlines()
    rows = [line for line in lines if line and not line.startswith("#")]
    if rows[0] != "label\ttext":
        raise ValueError(f"messages.tsv: unexpected header {rows[0]!r}")
    for number, line in enumerate(rows[1:], start=2):
        label, sep, text = line.partition("\t")
        if not sep or label not in ("ham", "spam"):
            raise ValueError(f"messages.tsv: malformed row {number}: {line!r}")
        labels.append(label)
        texts.append(text)
    return texts, np.array(labels)


def train_test_split_messages(
    test_size: float = 0.3, random_state: int = 0
) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """Split :func:`load_messages` into training and test sets, stratified by label.

    Parameters
    ----------
    test_size : float
        Fraction of the messages in the test set.
    random_state : int
        Seed of the split.

    Returns
    -------
    texts_train, texts_test : list of str
    y_train, y_test : ndarray of str

    Examples
    --------
    >>> import linlib
    >>> texts_train, texts_test, y_train, y_test = linlib.train_test_split_messages(test_size=0.3)
    >>> len(texts_train), len(texts_test)
    (245, 105)

    Introduced in 04 — Naive Bayes is a linear classifier.
    """
    from sklearn.model_selection import train_test_split

    texts, labels = load_messages()
    texts_train, texts_test, y_train, y_test = train_test_split(
        texts, labels, test_size=test_size, random_state=random_state, stratify=labels
    )
    return list(texts_train), list(texts_test), np.asarray(y_train), np.asarray(y_test)


def bag_of_words(
    train_texts: Iterable[str],
    test_texts: Iterable[str] | None = None,
    **vectorizer_kwargs: Any,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Word counts of texts, with the vocabulary learned on the training texts only.

    A thin wrapper of scikit-learn's ``CountVectorizer`` (lower-cased words of two or
    more letters or digits by default): words seen only in the test texts are dropped,
    as they would be for any new message.

    Parameters
    ----------
    train_texts : iterable of str
    test_texts : iterable of str, optional
    **vectorizer_kwargs
        Passed to ``CountVectorizer`` (e.g. ``binary=True``, ``stop_words="english"``,
        ``ngram_range=(1, 2)``).

    Returns
    -------
    X_train : ndarray of int64, shape (n_train, n_words)
    X_test : ndarray of int64, shape (n_test, n_words), or None
    vocabulary : ndarray of str, shape (n_words,)
        The word of each column, in alphabetical order.

    Examples
    --------
    >>> import linlib
    >>> train, test = ["win cash now", "lunch now"], ["cash lunch cash"]
    >>> X_train, X_test, vocabulary = linlib.bag_of_words(train, test)
    >>> vocabulary
    array(['cash', 'lunch', 'now', 'win'], dtype='<U5')
    >>> X_train
    array([[1, 0, 1, 1],
           [0, 1, 1, 0]])
    >>> X_test
    array([[2, 1, 0, 0]])

    Introduced in 04 — Naive Bayes is a linear classifier.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    if isinstance(train_texts, str) or isinstance(test_texts, str):
        raise TypeError("pass a list of texts, not a single string")
    vectorizer = CountVectorizer(**vectorizer_kwargs)
    X_train = vectorizer.fit_transform(list(train_texts)).toarray().astype(np.int64)
    X_test = None
    if test_texts is not None:
        X_test = vectorizer.transform(list(test_texts)).toarray().astype(np.int64)
    vocabulary = np.asarray(vectorizer.get_feature_names_out(), dtype=str)
    return X_train, X_test, vocabulary
