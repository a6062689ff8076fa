"""Submission times: nbgrader's timestamp.txt, Moodle's grading worksheet (the shape Moodle
downloads: mod/assign/gradingtable.php's columns, userdate's English format), a plain CSV;
bad times one line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from autograder.intake import read_submissions
from autograder.lms import read_timestamp
from autograder.models import TermError
from autograder.term import parse_time, read_times

BERLIN = ZoneInfo("Europe/Berlin")
COURSE = ["01_hyperplanes", "04_naive_bayes_linear"]

#: Moodle's "Download grading worksheet" of an assignment (English, quick grading off)
WORKSHEET = (
    'Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
    '"Grade can be changed","Last modified (submission)","Last modified (grade)",'
    '"Feedback comments"\r\n'
    '"Participant 4711","Jane Doe",jane@example.org,"Submitted for grading",,100.00,Yes,'
    '"Friday, 3 October 2025, 11:59 PM",-,\r\n'
    '"Participant 4712","John Smith",john@example.org,"Submitted for grading - 1 day 2 hours '
    'late",,100.00,Yes,"Sunday, 26 October 2025, 2:01 AM",-,\r\n'
    '"Participant 4713","Ann Lee",ann@example.org,"No submission",,100.00,Yes,-,-,\r\n'
)


def test_timestamp_txt_is_read_as_nbgrader_reads_it():
    # nbgrader submit's default format; a time without a zone is UTC for nbgrader
    stamp = read_timestamp("2025-10-03 21:59:00.123456 UTC\n")
    assert stamp == datetime(2025, 10, 3, 21, 59, 0, 123456, tzinfo=UTC)
    assert read_timestamp("2025-10-03 21:59:00") == datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    assert read_timestamp(b"2025-10-03 23:59:00 +0200") == datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    for bad in ("", "yesterday", "x" * 200):
        with pytest.raises(ValueError):
            read_timestamp(bad)


def test_a_folder_carries_its_timestamps_and_a_bad_one_is_a_flag(tmp_path):
    for student, stamp in [("ann", "2025-10-03 21:59:00.000000 UTC"), ("bo", "soon")]:
        folder = tmp_path / student / "01_hyperplanes"
        folder.mkdir(parents=True)
        (folder / "01_hyperplanes.ipynb").write_text("{}")
        (folder / "timestamp.txt").write_text(stamp)
    ann, bo = read_submissions(tmp_path)
    assert ann.submitted_at == datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    assert list(ann.files) == ["01_hyperplanes.ipynb"] and ann.flags == []
    assert bo.submitted_at is None and bo.flags == [
        "timestamp.txt cannot be read: no submission time"
    ]


def test_the_exchange_inbound_folder_is_one_submission_per_submit(tmp_path):
    for folder, stamp in [
        ("ann+01_hyperplanes+2025-10-03 21:00:00.000000 UTC+Abc", "2025-10-03 21:00:00.000000 UTC"),
        ("ann+01_hyperplanes+2025-10-04 08:00:00.000000 UTC+Xyz", "2025-10-04 08:00:00.000000 UTC"),
        ("bo+01_hyperplanes+2025-10-03 20:00:00.000000 UTC", None),
    ]:
        path = tmp_path / folder
        path.mkdir()
        (path / "01_hyperplanes.ipynb").write_text("{}")
        if stamp:
            (path / "timestamp.txt").write_text(stamp)
    raws = read_submissions(tmp_path)
    assert [(r.student, r.assignment, r.submitted_at.hour) for r in raws] == [
        ("ann", "01_hyperplanes", 21),
        ("ann", "01_hyperplanes", 8),
        ("bo", "01_hyperplanes", 20),  # no timestamp.txt: the folder's name
    ]
    assert all(list(r.files) == ["01_hyperplanes.ipynb"] for r in raws)


def test_moodle_worksheet_times_and_class_list(tmp_path):
    path = tmp_path / "worksheet.csv"
    path.write_bytes(b"\xef\xbb\xbf" + WORKSHEET.encode())
    times = read_times(path, BERLIN, COURSE)
    assert times.kind == "moodle" and times.roster == ["4711", "4712", "4713"]
    assert times.names["4712"] == "John Smith"
    assert times.time_for("4711", "01_hyperplanes") == datetime(2025, 10, 3, 23, 59, tzinfo=BERLIN)
    # 02:01 on the night the clocks go back: the first (CEST) of the two 02:01s
    assert times.time_for("4712", "01_hyperplanes").astimezone(UTC) == datetime(
        2025, 10, 26, 0, 1, tzinfo=UTC
    )
    assert times.time_for("4713", "01_hyperplanes") is None  # "-": handed nothing in


def test_a_worksheet_needs_the_course_time_zone(tmp_path):
    path = tmp_path / "worksheet.csv"
    path.write_text(WORKSHEET)
    with pytest.raises(
        TermError, match=r"worksheet\.csv: a Moodle worksheet's times carry no time zone"
    ):
        read_times(path, None, COURSE)


def test_plain_csv_times(tmp_path):
    path = tmp_path / "times.csv"
    path.write_text(
        "student_id,timestamp,assignment\n"
        "alice,2025-10-03T23:59:00+02:00,01_hyperplanes\n"
        "alice,2025-10-24T21:59:00Z,04_naive_bayes_linear\n"
        "bob,2025-10-03 21:59:00.000000 UTC,01_hyperplanes\n"
        "carol,2025-10-03 23:59,01_hyperplanes\n"
    )
    times = read_times(path, BERLIN, COURSE)
    assert times.time_for("alice", "01_hyperplanes") == datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    assert times.time_for("alice", "04_naive_bayes_linear") == datetime(
        2025, 10, 24, 21, 59, tzinfo=UTC
    )
    assert times.time_for("bob", "01_hyperplanes") == datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    assert times.time_for("carol", "01_hyperplanes") == datetime(2025, 10, 3, 23, 59, tzinfo=BERLIN)
    assert times.time_for("alice", "02_perceptron_update") is None
    path.write_text("student_id;timestamp\nx;2025-10-03T23:59:00+02:00\n")  # semicolons
    assert read_times(path, None, COURSE).time_for("x", "01_hyperplanes").hour == 23


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "student_id,timestamp\nalice,2025-10-03 23:59\n",
            "line 2: '2025-10-03 23:59' has no time zone",
        ),
        ("student_id,timestamp\nalice,last friday\n", "line 2: 'last friday' is not a time"),
        (
            "student_id,timestamp\nalice,2025-10-03T23:59Z\nalice,2025-10-04T23:59Z\n",
            "line 3: alice has a second time",
        ),
        ("student_id,timestamp\n,2025-10-03T23:59Z\n", "line 2: no student_id"),
        ("student_id,timestamp\nalice\n", "line 2: 1 columns, the header has 2"),
        ("student,time\nalice,2025-10-03T23:59Z\n", "neither a Moodle grading worksheet"),
        (
            "student_id,timestamp,assignment\na,2025-10-03T23:59Z,09_x\n",
            "unknown assignment '09_x'",
        ),
        ("", "empty"),
    ],
)
def test_bad_times_are_one_line(tmp_path, content, message):
    path = tmp_path / "times.csv"
    path.write_text(content)
    with pytest.raises(TermError) as caught:
        read_times(path, None, COURSE)
    assert str(caught.value).startswith("times.csv: ") and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_parse_time_forms():
    plus2 = timezone(timedelta(hours=2))
    assert parse_time("2025-10-03T23:59:00+02:00", None) == datetime(
        2025, 10, 3, 23, 59, tzinfo=plus2
    )
    assert parse_time("2025-10-03 21:59:00 UTC", None) == datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    assert parse_time("2025-10-03 23:59:00 +0200", None).utcoffset() == timedelta(hours=2)
    assert parse_time("2025-10-03 23:59:00 Europe/Berlin", None).tzinfo == BERLIN
    with pytest.raises(ValueError, match="no time zone"):
        parse_time("2025-10-03 23:59", None)
