"""No surface cue gives a quiz away: the keyed answer is not the longest option more often than chance
would make it, and a question's options are of similar length.

A test-wise learner who always picks the longest option should score what a guesser scores. Each
question is read from its solution notebook (a markdown cell of "**qN.**" questions and "(a) ..."
options, whether the options sit one per line or several on a line) and its key from the lab's checks
(`ask(t, "qN", qN, "b", ...)` in course/grading/checks/labNN.py, or in any module of its labNN/ package),
so the test sees what learners see and what the checks grade. Questions with several right answers and
ordering questions are left out of the longest-option count: their keys are sets or sequences, not one
option.

The statistic: for single-answer question i with k_i options, a guesser picks the longest option with
probability 1/k_i (a tie for longest counts as a share). The count of keyed-longest questions is then
a sum of independent Bernoulli trials (a Poisson binomial); the test fails when the observed count is
so high that a guesser would reach it less than 5 % of the time.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from course.grading import manifest

ROOT = Path(__file__).resolve().parents[2]
COURSE = manifest.load()
QUESTION = re.compile(r"\*\*(q\d+)\.\*\*")
OPTION = re.compile(r"(?:^|(?<=\s))\(([a-f])\)\s+")
SIGNIFICANCE = 0.05
# Options of similar length: the longest at most this many times the shortest, once both are given a
# floor of FLOOR characters (a bare "11" beside "about 17" is not a length cue).
LENGTH_RATIO = 1.8
FLOOR = 25


@dataclass(frozen=True)
class Question:
    lab: str
    name: str  # "q1"
    text: str
    options: dict[str, str]  # letter -> option text, whitespace collapsed
    key: object  # "b", or a set of letters, or an ordering string

    @property
    def single(self) -> bool:
        return isinstance(self.key, str) and len(self.key) == 1

    def lengths(self) -> dict[str, int]:
        return {letter: len(text) for letter, text in self.options.items()}

    def keyed_longest_share(self) -> float:
        """1 when the keyed option alone is the longest; 1/n when it ties with n-1 others; else 0."""
        lengths = self.lengths()
        longest = max(lengths.values())
        tied = [letter for letter, n in lengths.items() if n == longest]
        return 1 / len(tied) if self.key in tied else 0.0

    def length_spread(self) -> float:
        lengths = [max(n, FLOOR) for n in self.lengths().values()]
        return max(lengths) / min(lengths)


def parse_options(body: str) -> tuple[str, dict[str, str]]:
    """(the text before the first option, {"a": option, ...}): options one a line, as bullets or not,
    or several on a line."""
    pieces = OPTION.split(body)
    text = " ".join(pieces[0].split())
    options = {letter: " ".join(option.split("\n\n")[0].split()).removesuffix(" *").strip()
               for letter, option in zip(pieces[1::2], pieces[2::2])}  # an option ends at a blank line
    return text, options


def parse_quiz(markdown: str) -> dict[str, tuple[str, dict[str, str]]]:
    """{"q1": (question text, {"a": option, ...})} from a "Check yourself" cell."""
    parts = QUESTION.split(markdown)
    return {name: parse_options(body) for name, body in zip(parts[1::2], parts[2::2])}


def keys_of(lab_id: str) -> dict[str, dict[str, object]]:
    """{exercise id: {answer name: key}} from the `ask(t, name, value, key, ...)` calls of a lab's checks, and
    from its `multiple_choice(exercise id, name=Question(key, ...), ...)` declarations."""
    checks = ROOT / "course" / "grading" / "checks"
    module = checks / f"lab{lab_id}.py"
    sources = [module] if module.exists() else sorted((checks / f"lab{lab_id}").glob("*.py"))
    keys: dict[str, dict[str, object]] = {}
    functions = [node for path in sources for node in ast.walk(ast.parse(path.read_text()))]
    for function in functions:
        if isinstance(function, ast.Call) and getattr(function.func, "id", None) == "multiple_choice":
            # multiple_choice("NN.quiz", q1=Question("b", ...), ...): each keyword an answer, its key first
            exercise = ast.literal_eval(function.args[0])
            for answer in function.keywords:
                keys.setdefault(exercise, {})[answer.arg] = ast.literal_eval(answer.value.args[0])
            continue
        if not isinstance(function, ast.FunctionDef):
            continue
        exercise = next((ast.literal_eval(d.args[0]) for d in function.decorator_list
                         if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "exercise_check"), None)
        if exercise is None:
            continue
        for call in ast.walk(function):
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "ask":
                keys.setdefault(exercise, {})[ast.literal_eval(call.args[1])] = ast.literal_eval(call.args[3])
    return keys


def questions_of(lab) -> list[Question]:
    """The questions of the markdown cell just above the lab's quiz cell, with their keys."""
    notebook = nbformat.read(ROOT / "solutions" / lab.notebook, as_version=4)
    quiz_cell = next((n for n, cell in enumerate(notebook.cells)
                      if cell.metadata.get("course", {}).get("exercise") == f"{lab.id}.quiz"), None)
    if quiz_cell is None:
        return []
    text = next(cell.source for cell in reversed(notebook.cells[:quiz_cell]) if cell.cell_type == "markdown")
    quiz = keys_of(lab.id).get(f"{lab.id}.quiz", {})
    parsed = parse_quiz(text)
    return [Question(lab.id, name, *parsed[name], key) for name, key in quiz.items() if name in parsed]


def predictions_of(lab) -> list[Question]:
    """Each recorded prediction (an exercise NN.predict_*), with the options of the markdown cell just
    above its cell and the key its check asks for."""
    notebook = nbformat.read(ROOT / "solutions" / lab.notebook, as_version=4)
    keys = keys_of(lab.id)
    found = []
    for index, cell in enumerate(notebook.cells):
        exercise = cell.metadata.get("course", {}).get("exercise", "")
        if not exercise.startswith(f"{lab.id}.predict"):
            continue
        above = next(c.source for c in reversed(notebook.cells[:index]) if c.cell_type == "markdown")
        text, options = parse_options(above[above.rfind("Predict"):] if "Predict" in above else above)
        for name, key in keys.get(exercise, {}).items():
            found.append(Question(lab.id, f"{exercise.split('.')[1]}:{name}", text, options, key))
    return found


def all_questions() -> list[Question]:
    return [q for lab in COURSE.labs for q in questions_of(lab)]


def all_predictions() -> list[Question]:
    return [q for lab in COURSE.labs for q in predictions_of(lab)]


def poisson_binomial_tail(probabilities: list[float], at_least: float) -> float:
    """P(sum of independent Bernoulli(p_i) >= at_least)."""
    distribution = [1.0]
    for p in probabilities:
        nxt = [0.0] * (len(distribution) + 1)
        for count, mass in enumerate(distribution):
            nxt[count] += mass * (1 - p)
            nxt[count + 1] += mass * p
        distribution = nxt
    return sum(mass for count, mass in enumerate(distribution) if count >= at_least - 1e-9)


def keyed_longest(questions: list[Question]) -> tuple[float, float, float]:
    """(observed count of keyed-longest questions, what a guesser expects, P(a guesser does as well))."""
    single = [q for q in questions if q.single]
    observed = sum(q.keyed_longest_share() for q in single)
    chances = [1 / len(q.options) for q in single]
    return observed, sum(chances), poisson_binomial_tail(chances, observed)


# -- the detector itself can fail ---------------------------------------------------------------------


def _synthetic(keyed_is_longest: int, total: int) -> list[Question]:
    short, long = {"a": "x" * 30, "b": "y" * 30}, {"c": "z" * 60}
    return [Question("99", f"q{n}", "?", {**short, **long}, "c" if n < keyed_is_longest else "a")
            for n in range(total)]


def test_the_statistic_flags_a_quiz_whose_keys_are_the_longest_option():
    observed, expected, p = keyed_longest(_synthetic(keyed_is_longest=30, total=40))
    assert (observed, round(expected, 2)) == (30, 13.33) and p < SIGNIFICANCE


def test_the_statistic_passes_a_quiz_keyed_at_chance():
    observed, expected, p = keyed_longest(_synthetic(keyed_is_longest=13, total=40))
    assert p > SIGNIFICANCE


def test_the_parser_reads_options_one_per_line_and_several_on_a_line():
    parsed = parse_quiz("**q1.** Why?\n  (a) one\n  (b) two, and\n  more\n\n**q2.** How? (a) x (b) y (c) z")
    assert parsed == {"q1": ("Why?", {"a": "one", "b": "two, and more"}),
                      "q2": ("How?", {"a": "x", "b": "y", "c": "z"})}


# -- the course's quizzes ---------------------------------------------------------------------------------


def test_every_quiz_question_is_read_with_its_options_and_key():
    for lab in COURSE.labs:
        quiz = keys_of(lab.id).get(f"{lab.id}.quiz", {})
        read = {q.name for q in questions_of(lab)}
        assert set(quiz) <= read, f"lab {lab.id}: the checks key {sorted(set(quiz) - read)} but the notebook's quiz has no such question"
        for question in questions_of(lab):
            assert len(question.options) >= 2, f"{lab.id}.{question.name}: fewer than two options read"
            letters = set(question.key) - {",", " "}
            assert letters <= set(question.options), f"{lab.id}.{question.name}: key {question.key!r} is not an option"


def test_the_keyed_answer_is_the_longest_option_no_more_often_than_chance():
    observed, expected, p = keyed_longest(all_questions())
    longest = [f"{q.lab}.{q.name}" for q in all_questions() if q.single and q.keyed_longest_share() == 1]
    assert p >= SIGNIFICANCE, (
        f"the keyed answer is the longest option in {observed:g} single-answer questions; a guesser picking "
        f"the longest would expect {expected:.1f}, and reaches {observed:g} with probability {p:.3g}. "
        f"Keyed-longest: {', '.join(longest)}")


def test_every_prediction_is_read_with_its_options_and_key():
    predicted = {e.id for lab in COURSE.labs for e in lab.exercises if e.id.split(".")[1].startswith("predict")}
    read = {f"{q.lab}.{q.name.split(':')[0]}" for q in all_predictions()}
    assert predicted == read
    for question in all_predictions():
        assert len(question.options) >= 3 and set(question.key) <= set(question.options), question


def test_a_predictions_keyed_answer_is_the_longest_option_no_more_often_than_chance():
    observed, expected, p = keyed_longest(all_predictions())
    longest = [f"{q.lab}.{q.name}" for q in all_predictions() if q.keyed_longest_share() == 1]
    assert p >= SIGNIFICANCE, (f"keyed-longest in {observed:g} predictions, {expected:.1f} expected by chance "
                               f"(p = {p:.3g}): {', '.join(longest)}")


@pytest.mark.parametrize("question", all_questions() + all_predictions(), ids=lambda q: f"{q.lab}.{q.name}")
def test_a_questions_options_are_of_similar_length(question):
    assert question.length_spread() <= LENGTH_RATIO, (
        f"{question.lab}.{question.name}: option lengths {question.lengths()} (the longest over "
        f"{LENGTH_RATIO}× the shortest, each counted as at least {FLOOR} characters)")
