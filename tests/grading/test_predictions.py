"""A prediction's check and its reveal (course/grading/predictions.py): for every "Predict" of the course,
one letter passes, every other letter fails that prediction alone and without naming the letter that
passes, and reveal prints what the learner predicted beside what the run measured."""

from __future__ import annotations

import pytest

from course.grading import manifest, reveal, run_check

PREDICTIONS = [e for lab in manifest.load().labs for e in lab.exercises if ".predict" in e.id]
LETTERS = "abcde"


def test_the_course_records_its_predictions():
    assert len(PREDICTIONS) >= 30  # each lab's "Predict" cells, 01 to 13


@pytest.mark.parametrize("exercise", PREDICTIONS, ids=lambda e: e.id)
def test_one_letter_passes_and_every_other_fails_without_naming_it(exercise):
    def answers(name, letter):
        right = {other: keys[other] for other in exercise.answers if other != name}
        return {**right, name: letter}

    keys = {}
    for name in exercise.answers:  # each prediction's key: the one letter that passes it, the others wrong
        passing = [x for x in LETTERS
                   if _passed(run_check(exercise.id, **{n: x if n == name else "z" for n in exercise.answers}), name)]
        assert len(passing) == 1, f"{exercise.id} {name}: letters that pass: {passing}"
        keys[name] = passing[0]
    assert run_check(exercise.id, **keys).passed
    for name in exercise.answers:
        for letter in LETTERS.replace(keys[name], ""):
            report = run_check(exercise.id, **answers(name, letter))
            failed = [r.name.split(":")[0] for r in report.results if not r.passed]
            assert failed == [name], report.render()
            assert f"'{keys[name]}'" not in report.render()


def _passed(report, name: str) -> bool:
    return any(r.passed for r in report.results if r.name.split(":")[0] == name)


def test_reveal_prints_the_prediction_beside_the_measurement(capsys):
    reveal("03.predict_batches", "5 claims of 100 jobs", predict_batches="C")
    out = capsys.readouterr().out
    assert "you predicted:    (c)" in out and "the run measured: 5 claims of 100 jobs" in out
    assert "03.predict_batches" in out  # the check's report follows


def test_reveal_says_when_nothing_was_predicted(capsys):
    reveal("03.predict_batches", "5 claims of 100 jobs", predict_batches=None)
    assert "nothing yet" in capsys.readouterr().out


def test_reveal_of_an_unknown_exercise_says_so_and_raises_nothing(capsys):
    reveal("03.predict_nothing", "anything")
    assert "03.predict_nothing" in capsys.readouterr().out
