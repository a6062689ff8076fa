"""Write ``messages.tsv``: the course's synthetic two-class corpus of short messages.

The messages are made up by this script from templates and word lists; none is a real
message. ``ham`` (ordinary messages) outnumbers ``spam`` about 2 to 1 so that the class
priors matter, the two classes share much of their vocabulary ("free", "call", "now",
"today" occur in both), and a few messages are deliberately ambiguous (ordinary messages
full of spam words, spam dressed up as a friend's note) so that Naive Bayes and the
perceptron disagree on some of them.

Run ``python linlib/data/make_messages.py`` to rewrite the file (a script, not a module:
``linlib.data`` is the module ``linlib/data.py``); the result depends only
on the seed (Python's ``random.Random.random``, whose sequence Python guarantees across
versions; the other ``random`` methods are not guaranteed, so they are not used).
A test regenerates the file and checks it is unchanged.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

SEED = 2024
N_HAM = 230
N_SPAM = 120
N_AMBIGUOUS = 20  # of each class, included in the counts above
PATH = Path(__file__).with_name("messages.tsv")
HEADER = (
    "# Synthetic corpus: short messages written by linlib/data/make_messages.py "
    f"(seed {SEED}), not real messages. Columns: label (ham or spam), text."
)

WORDS: dict[str, list[str]] = {
    "name": ["anna", "ben", "carla", "dev", "emma", "farid", "grace", "hugo", "ines", "jon"],
    "greet": ["hi", "hey", "hello", "good morning", "hi there"],
    "salute": ["dear customer", "dear user", "hello friend", "attention"],
    "time": ["today", "tonight", "tomorrow", "this weekend", "on friday", "at 6", "later"],
    "day": ["friday", "monday", "tomorrow", "next week", "the afternoon"],
    "deadline": ["today only", "this weekend only", "until midnight", "for 24 hours"],
    "place": ["the cafe", "the station", "the library", "mum's", "the office", "the gym"],
    "doc": ["slides", "notes", "photos", "forms", "minutes", "tickets", "results"],
    "event": ["the meeting", "dinner", "the match", "the dentist", "the party", "practice"],
    "thing": ["lift", "birthday card", "help yesterday", "book", "recipe", "photos"],
    "food": ["pizza", "cake", "coffee", "sandwiches", "biscuits"],
    "prize": ["prize", "gift card", "cash reward", "holiday", "new phone", "voucher"],
    "product": ["watches", "pills", "phones", "loans", "software", "perfume"],
    "price": ["$9.99", "$19", "£5", "$1"],
    "amount": ["£1000", "$500", "$2000", "£250"],
    "percent": ["50%", "70%", "80%", "90%"],
    "account": ["account", "bank account", "card", "mailbox", "subscription"],
    "problem": ["has been suspended", "needs verification", "is on hold", "was locked"],
    "link": ["this link", "the link below", "www.example.com/claim", "example.net/win"],
    "code": ["WIN", "PRIZE", "CLAIM", "GO"],
    "nice": ["you are a star", "really appreciated", "much appreciated", "so kind"],
    "urgent": ["urgent", "important", "final notice", "act now"],
}

HAM = [
    "are you free {time}? we could go to {place}",
    "can you send me the {doc} before {event}",
    "running late, see you at {place} in ten minutes",
    "thanks for the {thing}, {nice}",
    "don't forget {event} {time}",
    "call me when you get home",
    "the {doc} are in the shared folder",
    "lunch at {place} {time}?",
    "happy birthday {name}! hope you have a great day",
    "i left the {doc} at {place}, can you pick them up",
    "{greet} {name}, how was {event}?",
    "did you see the game last night",
    "mum says dinner is at 7, bring {food}",
    "i'll call you back after {event}",
    "got the {doc}, will read them {time}",
    "{name} is coming {time}, can we meet at {place}",
    "ok see you {time}",
    "sorry i missed your call, i was at {event}",
    "can we move {event} to {day}?",
    "the bus is late again, start without me",
    "good luck {time}, you will be great",
    "please reply when you have a minute",
    "where did you park? i'm at {place}",
    "thanks {name}, the {doc} look good",
    "who is bringing {food} {time}",
    "can you call me {time}? no rush",
    "i won't make it {time}, sorry, can we do {day}",
    "the {doc} from {event} are online now",
    "text me the address of {place}",
    "the match was fun, we nearly won",
    "shall i book a table at {place} for {event}?",
    "is the offer of a lift {time} still on?",
]

SPAM = [
    "congratulations! you have won a {prize}. call now to claim",
    "{urgent}: your {account} {problem}. click {link} now",
    "free {prize} for you! text {code} to 80080 now",
    "cheap {product}, {percent} off, today only. click {link}",
    "you have been selected for a {prize}, reply {code} to claim",
    "win {amount} cash now! call 0800 555 0199",
    "limited offer: {product} for just {price}, free delivery",
    "{salute}, claim your free {prize} before midnight",
    "your {account} {problem}, verify now at {link}",
    "earn {amount} a week from home, no experience, call now",
    "final chance to win a {prize}! text {code} now",
    "exclusive deal: {percent} off {product}, {deadline}",
    "you have 1 new message waiting, click {link} to read it",
    "your {account} will be closed {deadline}, reply YES to keep it",
    "we tried to deliver your parcel, pay £1.99 at {link}",
    "lowest rates on {product}, apply now, {deadline}",
    "{salute}, you are our lucky winner of {amount}. click {link}",
    "get cheap pills, no prescription, order now at {link}",
]

# Ordinary messages full of spam words, and spam dressed up as a friend's message.
AMBIGUOUS_HAM = [
    "i won the office quiz! free {food} for everyone {time}",
    "call me now, it's urgent, about {event}",
    "there is a free {food} offer at {place} {time}, want to come",
    "did you claim your prize from the raffle? call {name}",
    "text me when you win, good luck {time}",
    "the shop has {percent} off {time}, want to go",
    "can you click the link i sent about {event}",
]

AMBIGUOUS_SPAM = [
    "hi {name}, are you free {time}? see my photos at {link}",
    "{greet}, thanks for the {thing}! your gift is waiting at {link}",
    "hey, i sent you the {doc}, open {link} to see them",
    "{name} said you would like this, call me back {time}",
    "sorry i missed your call, please reply to get your {prize}",
    "see you {time}? send me your {account} details first",
    "good news {name}, your {doc} are ready, reply {code}",
]


class _Picker:
    """Choices from ``random.Random.random`` only (see the module docstring)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def index(self, n: int) -> int:
        return min(int(self._rng.random() * n), n - 1)

    def pick(self, items: list[str]) -> str:
        return items[self.index(len(items))]

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.index(i + 1)
            items[i], items[j] = items[j], items[i]


def _fill(template: str, picker: _Picker) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: picker.pick(WORDS[m.group(1)]), template)


def _unique_messages(templates: list[str], n: int, picker: _Picker, seen: set[str]) -> list[str]:
    messages: list[str] = []
    attempts = 0
    while len(messages) < n:
        attempts += 1
        if attempts > 100 * n:
            raise RuntimeError("templates too few for that many distinct messages")
        text = _fill(picker.pick(templates), picker)
        if text not in seen:
            seen.add(text)
            messages.append(text)
    return messages


def generate_messages(seed: int = SEED) -> list[tuple[str, str]]:
    """The corpus as (label, text) pairs, in a seeded shuffled order."""
    picker = _Picker(seed)
    seen: set[str] = set()
    rows = [("ham", t) for t in _unique_messages(HAM, N_HAM - N_AMBIGUOUS, picker, seen)]
    rows += [("spam", t) for t in _unique_messages(SPAM, N_SPAM - N_AMBIGUOUS, picker, seen)]
    rows += [("ham", t) for t in _unique_messages(AMBIGUOUS_HAM, N_AMBIGUOUS, picker, seen)]
    rows += [("spam", t) for t in _unique_messages(AMBIGUOUS_SPAM, N_AMBIGUOUS, picker, seen)]
    picker.shuffle(rows)
    return rows


def render_tsv(seed: int = SEED) -> str:
    """The text of ``messages.tsv``."""
    lines = [HEADER, "label\ttext"]
    lines += [f"{label}\t{text}" for label, text in generate_messages(seed)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the corpus next to this script (or to the path given)."""
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0]) if argv else PATH
    path.write_text(render_tsv(), encoding="utf-8", newline="\n")
    print(f"wrote {path.name}: {N_HAM} ham and {N_SPAM} spam messages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
