"""course.errors.first_line: the one line of an error or a text that a log line or a report cell shows."""

from course.errors import first_line


def test_an_error_gives_its_first_line_or_its_type():
    assert first_line(ConnectionError("server closed the connection\nDETAIL: ...")) == "server closed the connection"
    assert first_line(TimeoutError()) == "TimeoutError"


def test_a_text_gives_its_first_line_cut_to_the_limit():
    assert first_line("  expected 3 rows\n got 2") == "expected 3 rows"
    assert first_line(None) == first_line("") == ""
    cut = first_line("x" * 300, limit=200)
    assert len(cut) == 200 and cut.endswith("…")
