"""A lab from its solution (course.grading.stubs): each answer region becomes a stub that names its exercise,
and a malformed region is refused with where and why. (Rendering the rules: tests/grading/test_rules_trace.py.)"""

import pytest

from course.errors import CourseError
from course.grading import stubs


def test_a_stub_inside_a_function_raises_with_the_exercise_id():
    source = "def claim(conn):\n    x = 1\n    # BEGIN SOLUTION\n    return conn\n    # END SOLUTION\n"
    stub = stubs.stub_code(source, "00.first_job", "test")
    assert 'raise NotImplementedError("00.first_job: Enqueue your first job' in stub
    assert "return conn" not in stub and "x = 1" in stub


def test_a_top_level_stub_keeps_the_names_and_blanks_the_answers():
    stub = stubs.stub_code('# BEGIN SOLUTION\nq1 = "c"\nq2 = {"a", "b"}\n# END SOLUTION', "00.quiz", "t")
    assert stub == "q1 = ...  # your answer\nq2 = ...  # your answer"


@pytest.mark.parametrize("source, message", [
    ("# BEGIN SOLUTION\nx = 1\n", "never closed"),
    ("x = 1\n# END SOLUTION\n", "without"),
    ("# BEGIN SOLUTION\nprint(1)\n# END SOLUTION", "must assign"),
])
def test_malformed_solution_regions_are_refused_clearly(source, message):
    with pytest.raises(CourseError, match=message):
        stubs.stub_code(source, "00.quiz", "somewhere")
