"""Tests of linlib.text and the synthetic message corpus it loads."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import Perceptron
from sklearn.naive_bayes import MultinomialNB

import linlib
from linlib.text import bag_of_words, load_messages, train_test_split_messages

DATA = Path(linlib.__file__).parent / "data"


def load_generator():
    """linlib/data/make_messages.py is a script (linlib.data is a module): load it by path."""
    spec = importlib.util.spec_from_file_location("make_messages", DATA / "make_messages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_corpus_is_what_the_generator_writes():
    generator = load_generator()
    committed = (DATA / "messages.tsv").read_text(encoding="utf-8")
    assert generator.render_tsv() == committed


def test_generator_is_seeded():
    generator = load_generator()
    assert generator.generate_messages(1) == generator.generate_messages(1)
    assert generator.generate_messages(1) != generator.generate_messages(2)


def test_generator_writes_to_a_given_path(tmp_path, capsys):
    generator = load_generator()
    target = tmp_path / "out.tsv"
    assert generator.main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == generator.render_tsv()
    assert "wrote out.tsv" in capsys.readouterr().out


def test_corpus_says_it_is_synthetic():
    first_line = (DATA / "messages.tsv").read_text(encoding="utf-8").splitlines()[0]
    assert first_line.startswith("# Synthetic corpus")
    assert "not real messages" in first_line
    assert "synthetic" in linlib.text.__doc__


def test_load_messages_shape_and_classes():
    texts, labels = load_messages()
    assert isinstance(texts, list) and all(isinstance(t, str) for t in texts)
    assert isinstance(labels, np.ndarray) and labels.dtype.kind == "U"
    assert 300 <= len(texts) == len(labels) <= 400
    counts = Counter(labels.tolist())
    assert set(counts) == {"ham", "spam"}
    # unequal classes, so that the prior (NB's intercept) matters
    assert 0.25 <= counts["spam"] / len(labels) <= 0.45
    assert all(t and t == t.strip() and "\t" not in t and "\n" not in t for t in texts)
    assert len(set(texts)) == len(texts)


def tokens(text):
    return re.findall(r"\b\w\w+\b", text.lower())


def test_classes_share_vocabulary():
    texts, labels = load_messages()
    words = {
        cls: {w for t, c in zip(texts, labels, strict=True) if c == cls for w in tokens(t)}
        for cls in ("ham", "spam")
    }
    shared = words["ham"] & words["spam"]
    assert {"free", "call", "now", "win", "click"} <= shared
    assert len(shared) >= 40


def counts_by_hand(texts, vocabulary):
    """Word counts with CountVectorizer's default tokens (2+ word characters, lower case)."""
    column = {word: j for j, word in enumerate(vocabulary)}
    X = np.zeros((len(texts), len(vocabulary)), dtype=np.int64)
    for i, text in enumerate(texts):
        for token in tokens(text):
            if token in column:
                X[i, column[token]] += 1
    return X


def test_bag_of_words_counts_words():
    train = ["Free pizza, free!", "call me now", "a b cc"]
    test = ["free call tomorrow", "nothing known here"]
    X_train, X_test, vocabulary = bag_of_words(train, test)
    assert vocabulary.tolist() == ["call", "cc", "free", "me", "now", "pizza"]
    assert X_train.dtype == X_test.dtype == np.int64
    np.testing.assert_array_equal(X_train, counts_by_hand(train, vocabulary))
    np.testing.assert_array_equal(X_test, counts_by_hand(test, vocabulary))
    assert X_test[1].sum() == 0  # words never seen in training are dropped


def test_bag_of_words_on_the_corpus_and_options():
    texts, _ = load_messages()
    X, none, vocabulary = bag_of_words(texts)
    assert none is None
    assert X.shape == (len(texts), len(vocabulary))
    assert list(vocabulary) == sorted(vocabulary)
    np.testing.assert_array_equal(X, counts_by_hand(texts, vocabulary))
    X_binary, _, _ = bag_of_words(texts, binary=True)
    np.testing.assert_array_equal(X_binary, (X > 0).astype(np.int64))


def test_bag_of_words_rejects_a_single_string():
    with pytest.raises(TypeError, match="list of texts"):
        bag_of_words("free pizza")


def test_train_test_split_messages():
    texts, labels = load_messages()
    train, test, y_train, y_test = train_test_split_messages(test_size=0.3, random_state=0)
    assert len(train) + len(test) == len(texts)
    assert abs(len(test) - 0.3 * len(texts)) <= 1
    assert sorted(train + test) == sorted(texts)
    by_text = dict(zip(texts, labels, strict=True))
    assert [by_text[t] for t in train] == y_train.tolist()
    assert [by_text[t] for t in test] == y_test.tolist()
    # stratified: the same share of spam on both sides
    assert abs(np.mean(y_train == "spam") - np.mean(y_test == "spam")) < 0.02
    again = train_test_split_messages(test_size=0.3, random_state=0)
    assert again[0] == train and again[1] == test


def test_naive_bayes_and_perceptron_learn_it_and_disagree_somewhere():
    """What notebook 04 shows with this corpus: both work, not on the same messages."""
    train, test, y_train, y_test = train_test_split_messages(random_state=0)
    X_train, X_test, _ = bag_of_words(train, test)
    nb = MultinomialNB(alpha=1.0, force_alpha=True).fit(X_train, y_train)
    perceptron = Perceptron(shuffle=False, tol=None, max_iter=20).fit(X_train, y_train)
    majority = np.mean(y_test == "ham")
    nb_pred, perceptron_pred = nb.predict(X_test), perceptron.predict(X_test)
    assert np.mean(nb_pred == y_test) > majority + 0.2
    assert np.mean(perceptron_pred == y_test) > majority + 0.2
    assert np.any(nb_pred != perceptron_pred)
    assert np.mean(nb_pred == y_test) < 1.0  # the ambiguous messages are hard
