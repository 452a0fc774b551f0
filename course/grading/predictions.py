"""A prediction, written down before a demo and shown beside what the demo measured.

The notebook asks for a prediction as a letter, in an exercise cell before the demo runs:

    predict_double_claim = "b"   # (a) one receipt  (b) two  (c) none

and, once the demo has measured the answer, sets the two side by side and checks the letter:

    reveal("03.predict_double_claim", "the customer of order 9812 got 2 receipts")

prints

    you predicted: (b)
    the run measured: the customer of order 9812 got 2 receipts
    03.predict_double_claim: these 1 checks passed ...

A prediction that was wrong is the point of the exercise, not a failure of the learner: the check's
note says where in the measurement to look, and the learner changes the letter once they see why.
"""

from __future__ import annotations

import inspect


def reveal(exercise_id: str, measured: str, **answers: object) -> None:
    """Print the learner's prediction(s) beside `measured`, then run the exercise's check."""
    from course.grading import check, exercise_and_answers  # imported late: the package imports us

    exercise = exercise_and_answers(exercise_id, answers, inspect.currentframe().f_back.f_globals)
    if exercise is None:
        return
    for name in exercise.answers:
        print(f"you predicted:    {_letters(answers.get(name))}" + (f"  ({name})" if len(exercise.answers) > 1 else ""))
    print(f"the run measured: {measured}")
    check(exercise_id, **answers)


def _letters(value: object) -> str:
    if value is None or value is Ellipsis:
        return "nothing yet (set your letter in the cell before the demo, and run it)"
    if isinstance(value, str):
        letters = value.replace(",", " ").split()
    elif isinstance(value, (set, frozenset, list, tuple)):
        letters = sorted(str(v) for v in value)
    else:
        return repr(value)
    return ", ".join(f"({letter.strip().lower()})" for letter in letters) or "nothing yet"
