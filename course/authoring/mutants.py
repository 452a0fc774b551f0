"""`python -m course.authoring.mutants 06 [--exercise 06.confirm_booking]`: a mutation sweep of the checks.

For each code exercise of a lab it takes the solution's answer (the exercise cell of solutions/NN_*.ipynb,
run after the notebook's set-up cells, as `compare` and the tests load an answer), applies one generic
mutation at a time — drop `ORDER BY`, drop `SKIP LOCKED`, drop one `WHERE`/`AND` term, replace an
argument by a literal the notebook's demos use, move a `min` cap inside/outside a random draw, remove
`with conn.transaction():`, move a statement into or out of a transaction, drop a keyword argument,
flip `<=`/`<` and `>=`/`>`, swap `+ 1`/`- 1`, drop a guard or a call — and runs the exercise's checks on each mutant, each in a process of its own with a
time limit. A mutant the checks fail is killed; one that passes survived: either the checks have a hole
(fix the check, and add the mutant as a wrong answer to tests/grading/checks/test_labNN.py) or the mutant is
equivalent to the solution (say why in the note).

It is a developer's tool: the checks of worker exercises start processes, so a sweep of one of those
takes minutes. `--list` only prints the mutants.

Why one module: it is one sweep: the mutations are defined against the answer's syntax tree and judged
by running the checks on each, and the report counts what the mutations did.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import json
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from course.grading import manifest, notebooks
from course.grading.notebooks import ROOT, SOLUTIONS, without_magics
from course.infra import processes

DEFAULT_SEED = 7
DEFAULT_TIMEOUT_S = 180.0
SQL_WORDS = re.compile(r"\b(SELECT|UPDATE|INSERT|DELETE)\b")


@dataclass(frozen=True)
class Mutant:
    operator: str  # "drop SKIP LOCKED"
    line: int  # in the exercise cell, 1-based
    source: str  # the whole mutated cell, as ast.unparse writes it
    diff: str


@dataclass
class Outcome:
    mutant: Mutant
    verdict: str  # killed, survived, timeout, unloadable
    failed: list[str] = field(default_factory=list)  # names of the checks that failed
    seconds: float = 0.0


@dataclass
class Sweep:
    exercise_id: str
    outcomes: list[Outcome]
    baseline: str = "passed"  # what the checks said about the unmutated solution

    def count(self, *verdicts: str) -> int:
        return sum(o.verdict in verdicts for o in self.outcomes)

    @property
    def survivors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.verdict == "survived"]


# -- the mutation operators -----------------------------------------------------------------------------
#
# Each operator lists its sites in a freshly parsed tree (the nodes of ast.walk, by position, so the same
# site can be found again in a second parse) and applies itself to one of them.

_SQL_SUBSTITUTIONS: list[tuple[str, re.Pattern, str]] = [
    ("drop ORDER BY", re.compile(r"\s+ORDER\s+BY\s+.+?(?=\s+LIMIT\b|\s+OFFSET\b|\s+FOR\b|\s+RETURNING\b|\)|\Z)",
                                 re.I | re.S), ""),
    ("drop SKIP LOCKED", re.compile(r"\s+SKIP\s+LOCKED\b", re.I), ""),
    ("drop the row lock (FOR UPDATE ...)", re.compile(
        r"\s+FOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|SHARE|KEY\s+SHARE)(?:\s+SKIP\s+LOCKED|\s+NOWAIT)?\b", re.I), ""),
    ("drop an AND term", re.compile(
        r"\s+AND\s+(?:\((?:[^()]|\([^()]*\))*\)|[^()\n]+?)(?=\s+AND\b|\s+OR\b|\s+ORDER\b|\s+LIMIT\b|\s+RETURNING\b|"
        r"\s+FOR\b|\s+GROUP\b|\s+ON\s+CONFLICT\b|\)|\n|\Z)", re.I), ""),
    ("drop an OR term", re.compile(
        r"\s+OR\s+(?:\((?:[^()]|\([^()]*\))*\)|[^()\n]+?)(?=\s+AND\b|\s+OR\b|\s+ORDER\b|\s+LIMIT\b|\s+RETURNING\b|"
        r"\s+FOR\b|\s+GROUP\b|\)|\n|\Z)", re.I), ""),
    ("drop the first WHERE term", re.compile(
        r"(\bWHERE)\s+(?:\((?:[^()]|\([^()]*\))*\)|[^()\n]+?)\s+AND\s+", re.I), r"\1 "),
    ("drop a one-term WHERE", re.compile(
        r"\s+WHERE\s+(?:\((?:[^()]|\([^()]*\))*\)|[^()\n]+?)(?=\s+ORDER\b|\s+LIMIT\b|\s+RETURNING\b|\s+FOR\b|"
        r"\s+GROUP\b|\)|\n|\Z)(?!\s+AND\b)", re.I), ""),
    ("drop ON CONFLICT ... DO NOTHING", re.compile(r"\s+ON\s+CONFLICT\b.*?\bDO\s+NOTHING\b", re.I | re.S), ""),
    ("flip <= to <", re.compile(r"(?<![<>=!-])<=(?!>)"), "<"),
    ("flip < to <=", re.compile(r"(?<![<>=!-])<(?![=>])"), "<="),
    ("flip >= to >", re.compile(r"(?<![<>=!-])>="), ">"),
    ("flip > to >=", re.compile(r"(?<![<>=!-])>(?![=>])"), ">="),
    ("swap + 1 for - 1", re.compile(r"\+\s*1\b(?!\.)"), "- 1"),
    ("swap - 1 for + 1", re.compile(r"(?<![-\w(])-\s*1\b(?!\.)"), "+ 1"),
]

_DRAWS = {"uniform", "random", "randint", "randrange", "triangular", "expovariate", "gauss"}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str]]:
    """id(child) -> (parent, the field that holds it)."""
    out = {}
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    out[id(child)] = (parent, name)
    return out


def _replace_statement(tree: ast.AST, node: ast.stmt, replacement: list[ast.stmt]) -> None:
    parent, name = _parents(tree)[id(node)]
    body = getattr(parent, name)
    index = next(i for i, s in enumerate(body) if s is node)
    body[index:index + 1] = replacement or [ast.Pass()]
    if not getattr(parent, name):
        setattr(parent, name, [ast.Pass()])


def _is_transaction(node: ast.AST) -> bool:
    return (isinstance(node, ast.With) and any(
        isinstance(item.context_expr, ast.Call) and isinstance(item.context_expr.func, ast.Attribute)
        and item.context_expr.func.attr == "transaction" for item in node.items))


def _is_docstring(node: ast.stmt, docstrings: set[int]) -> bool:
    return isinstance(node, ast.Expr) and id(node.value) in docstrings


def _next_transaction(tree: ast.AST, node: ast.stmt) -> ast.With | None:
    """The `with conn.transaction():` that comes right after this statement in the same block, if any."""
    for parent in ast.walk(tree):
        for _, value in ast.iter_fields(parent):
            if isinstance(value, list) and any(s is node for s in value):
                index = next(i for i, s in enumerate(value) if s is node)
                after = value[index + 1] if index + 1 < len(value) else None
                return after if after is not None and _is_transaction(after) else None
    return None


def _is_draw(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DRAWS)


def _is_min(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min"
            and len(node.args) == 2 and not node.keywords)


def _execute_params(node: ast.AST) -> list[ast.expr]:
    """The parameters of conn.execute(sql, [a, b]) that are expressions, not literals."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "execute"
            and len(node.args) >= 2 and isinstance(node.args[1], (ast.List, ast.Tuple))):
        return [e for e in node.args[1].elts if not isinstance(e, ast.Constant)]
    return []


def _sites(tree: ast.AST, literals: list[int]) -> Iterator[tuple[str, int, object]]:
    """(operator, position of the node in ast.walk, detail) for every mutation this tree allows."""
    skip = _docstrings(tree)
    for position, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip \
                and SQL_WORDS.search(node.value):
            for name, pattern, _ in _SQL_SUBSTITUTIONS:
                for k, _match in enumerate(pattern.finditer(node.value)):
                    yield name, position, k
        elif isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                    yield f"flip {_OP_TEXT[type(op)]} to {_OP_TEXT[_FLIP[type(op)]]}", position, k
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) \
                and isinstance(node.right, ast.Constant) and node.right.value == 1:
            yield ("swap + 1 for - 1" if isinstance(node.op, ast.Add) else "swap - 1 for + 1"), position, None
        elif isinstance(node, ast.BoolOp) and len(node.values) > 1:
            for k in range(len(node.values)):
                yield f"drop a term of `{'and' if isinstance(node.op, ast.And) else 'or'}`", position, k
        if isinstance(node, ast.Call):
            for k, keyword in enumerate(node.keywords):
                if keyword.arg is not None:
                    yield f"drop the keyword argument {keyword.arg}=", position, k
            if isinstance(node.func, ast.Name) and node.func.id in ("min", "max") and len(node.args) == 2 \
                    and not node.keywords:
                yield f"swap {node.func.id}() for {'max' if node.func.id == 'min' else 'min'}()", position, None
                if any(isinstance(a, ast.Constant) for a in node.args):
                    yield f"drop the {node.func.id}() clamp", position, None
            if _is_draw(node) and any(_is_min(a) for a in node.args):
                yield "move the min() cap outside the random draw", position, None
            if _is_min(node) and any(_is_draw(a) for a in node.args):
                yield "move the min() cap inside the random draw", position, None
            for k, _param in enumerate(_execute_params(node)):
                for literal in literals:
                    yield f"replace a query parameter by the demo's literal {literal}", position, (k, literal)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str) and isinstance(node.ctx, ast.Load):
            for literal in literals:
                yield f"replace {ast.unparse(node)} by the demo's literal {literal}", position, literal
        if _is_transaction(node):
            yield "remove `with conn.transaction():` (its body runs in autocommit)", position, None
            if len(node.body) > 1:
                yield "move the transaction's first statement out, before it", position, None
                yield "move the transaction's last statement out, after it", position, None
        if isinstance(node, ast.stmt) and not _is_docstring(node, skip) and _next_transaction(tree, node) is not None:
            yield "move the statement before a transaction into it", position, None
        if isinstance(node, ast.If) and not node.orelse and len(node.body) == 1 \
                and isinstance(node.body[0], (ast.Return, ast.Continue, ast.Raise, ast.Break)):
            yield "drop a guard (if ...: return/continue/raise)", position, None
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            yield "drop a call statement", position, None


_OP_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def _apply(tree: ast.AST, operator: str, position: int, detail) -> None:
    node = list(ast.walk(tree))[position]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        for name, pattern, replacement in _SQL_SUBSTITUTIONS:
            if name == operator:
                match = list(pattern.finditer(node.value))[detail]
                node.value = node.value[:match.start()] + match.expand(replacement) + node.value[match.end():]
                return
    if operator in ("swap min() for max()", "swap max() for min()"):
        node.func = ast.Name("max" if node.func.id == "min" else "min", ast.Load())
    elif operator.startswith("drop the m") and operator.endswith("() clamp"):
        [kept] = [a for a in node.args if not isinstance(a, ast.Constant)][:1] or [node.args[0]]
        parent, name = _parents(tree)[id(node)]
        _set_child(parent, name, node, kept)
    elif operator.startswith("flip"):
        node.ops[detail] = _FLIP[type(node.ops[detail])]()
    elif operator in ("swap + 1 for - 1", "swap - 1 for + 1"):
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    elif operator.startswith("drop a term of"):
        del node.values[detail]
        if len(node.values) == 1:
            parent, name = _parents(tree)[id(node)]
            value = getattr(parent, name)
            if isinstance(value, list):
                value[value.index(node)] = node.values[0]
            else:
                setattr(parent, name, node.values[0])
    elif operator.startswith("drop the keyword"):
        del node.keywords[detail]
    elif operator == "move the min() cap outside the random draw":
        index = next(i for i, a in enumerate(node.args) if _is_min(a))
        cap = node.args[index]
        bound, inner = cap.args
        node.args[index] = inner
        parent, name = _parents(tree)[id(node)]
        moved = ast.Call(func=ast.Name("min", ast.Load()), args=[bound, copy.deepcopy(node)], keywords=[])
        _set_child(parent, name, node, moved)
    elif operator == "move the min() cap inside the random draw":
        index = next(i for i, a in enumerate(node.args) if _is_draw(a))
        bound = node.args[1 - index]
        draw = node.args[index]
        draw.args[-1] = ast.Call(func=ast.Name("min", ast.Load()), args=[bound, draw.args[-1]], keywords=[])
        parent, name = _parents(tree)[id(node)]
        _set_child(parent, name, node, draw)
    elif operator.startswith("replace a query parameter"):
        k, literal = detail
        params = node.args[1].elts
        expressions = [i for i, e in enumerate(params) if not isinstance(e, ast.Constant)]
        params[expressions[k]] = ast.Constant(literal)
    elif operator.startswith("replace "):
        parent, name = _parents(tree)[id(node)]
        _set_child(parent, name, node, ast.Constant(detail))
    elif operator.startswith("remove `with"):
        _replace_statement(tree, node, node.body)
    elif operator == "move the transaction's first statement out, before it":
        _replace_statement(tree, node, [node.body.pop(0), node])
    elif operator == "move the transaction's last statement out, after it":
        _replace_statement(tree, node, [node, node.body.pop()])
    elif operator == "move the statement before a transaction into it":
        block = _next_transaction(tree, node)
        parent, name = _parents(tree)[id(node)]
        getattr(parent, name).remove(node)  # the transaction follows it, so the block is never left empty
        block.body.insert(0, node)
    elif operator.startswith("drop a guard") or operator == "drop a call statement":
        _replace_statement(tree, node, [])
    else:
        raise ValueError(operator)


def _set_child(parent: ast.AST, name: str, old: ast.AST, new: ast.AST) -> None:
    value = getattr(parent, name)
    if isinstance(value, list):
        value[next(i for i, v in enumerate(value) if v is old)] = new
    else:
        setattr(parent, name, new)


def _readable(source: str) -> str:
    """The code as ast.unparse writes it, each multi-line string (a query) shortened to its first words."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            values = value if isinstance(value, list) else [value]
            for k, child in enumerate(values):
                if isinstance(child, ast.Constant) and isinstance(child.value, str) and "\n" in child.value \
                        and id(child) not in skip:
                    words = " ".join(child.value.split())
                    short = ast.Name(f'"""{words[:40]}{"..." if len(words) > 40 else ""}"""', ast.Load())
                    if isinstance(value, list):
                        value[k] = short
                    else:
                        setattr(node, name, short)
    return ast.unparse(tree)


def mutants(source: str, literals: list[int] = ()) -> list[Mutant]:
    """Every single-mutation variant of `source` that still compiles and differs from it."""
    original = ast.unparse(ast.parse(source))
    seen, out = {original}, []
    for operator, position, detail in list(_sites(ast.parse(source), list(literals))):
        tree = ast.parse(source)
        node = list(ast.walk(tree))[position]
        line = getattr(node, "lineno", 0)
        sql_before = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
        try:
            _apply(tree, operator, position, detail)
            ast.fix_missing_locations(tree)
            text = ast.unparse(tree)
            compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError, IndexError, StopIteration):
            continue
        if text in seen:
            continue
        seen.add(text)
        if sql_before is not None:  # a query: show its lines, not one long repr
            before, after = sql_before.strip("\n").splitlines(True), node.value.strip("\n").splitlines(True)
        else:
            before, after = _readable(source).splitlines(True), _readable(text).splitlines(True)
        before, after = ([line if line.endswith("\n") else line + "\n" for line in lines] for lines in (before, after))
        diff = "".join(difflib.unified_diff(before, after, "solution", "mutant", n=1))
        out.append(Mutant(operator, line, text, diff))
    return out


# -- the notebook ---------------------------------------------------------------------------------------


def _notebook(lab_id: str) -> Path:
    return SOLUTIONS / manifest.load().lab(lab_id).notebook


def demo_literals(demos: list[str], most: int = 3) -> list[int]:
    """The whole numbers the demos use most (ids, above all): what an answer copied from a demo holds."""
    counts: Counter = Counter()
    for source in demos:
        try:
            tree = ast.parse(without_magics(source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) is int and 1 <= node.value < 10**7:
                counts[node.value] += 1
        for number in re.findall(r"\b(?:id|_id)\s*=\s*(\d+)\b", source):  # ids written inside SQL
            counts[int(number)] += 1
    return [value for value, _ in counts.most_common(most)]


# -- running the checks on one mutant, in a process of its own ------------------------------------------


def _run_one(spec_path: str) -> int:
    """The child: load the set-up cells and the (mutated) exercise cell, run the check, print a verdict."""
    import contextlib
    import io

    from course.grading import run_check

    spec = json.loads(Path(spec_path).read_text())
    try:
        answers = notebooks.answers_from([*spec["setup"], spec["source"]], spec["exercise_id"],
                                         f"mutant {spec['exercise_id']}")
    except Exception as error:  # noqa: BLE001 (a mutant may not even load)
        print(json.dumps({"verdict": "unloadable", "failed": [f"{type(error).__name__}: {error}"]}))
        return 0
    with contextlib.redirect_stdout(io.StringIO()):
        report = run_check(spec["exercise_id"], seed=spec["seed"], **answers)
    failed = [r.name for r in report.results if not r.passed and r.reached]
    if report.problem:
        failed.append(f"problem: {report.problem}")
    if report.not_started:
        failed.append(f"not started: {report.not_started}")
    print(json.dumps({"verdict": "survived" if report.passed else "killed", "failed": failed}))
    return 0


def run_mutant(exercise_id: str, setup: list[str], source: str, *, seed: int, timeout_s: float) -> tuple[str, list[str], float]:
    """(verdict, failed check names, seconds) for the checks on this source, in a child process group
    that is SIGKILLed whole (workers and services too) when it ends or outlives `timeout_s`."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="course-mutant-", delete=False) as spec:
        json.dump({"exercise_id": exercise_id, "setup": setup, "source": source, "seed": seed}, spec)
    started = time.monotonic()
    try:
        code, out, err = processes.output_within([sys.executable, "-m", "course.authoring.mutants", "--run-one",
                                                  spec.name], timeout_s, cwd=ROOT)
    finally:
        Path(spec.name).unlink(missing_ok=True)
    if code is None:
        return "timeout", [f"no verdict within {timeout_s:g} s"], time.monotonic() - started
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        return "unloadable", [f"the check process ended with code {code}: {err.strip()[-400:]}"], \
            time.monotonic() - started
    verdict = json.loads(lines[-1])
    return verdict["verdict"], verdict["failed"], time.monotonic() - started


def sweep(exercise_id: str, *, seed: int = DEFAULT_SEED, timeout_s: float = DEFAULT_TIMEOUT_S,
          operators: Callable[[str], bool] = lambda name: True, progress: bool = True) -> Sweep:
    """Run the exercise's checks on the solution, then on each of its mutants."""
    lab_id = exercise_id.split(".")[0]
    found = notebooks.cells(_notebook(lab_id))
    setup, exercises, demos = found.setup, found.exercises, found.demos
    source = without_magics(exercises[exercise_id])
    candidates = [m for m in mutants(source, demo_literals(demos)) if operators(m.operator)]
    verdict, failed, _ = run_mutant(exercise_id, setup, source, seed=seed, timeout_s=timeout_s)
    if verdict != "survived":  # "survived" is what the solution must do: pass
        return Sweep(exercise_id, [], baseline=f"{verdict}: {failed}")
    outcomes = []
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(candidates), desc=exercise_id, unit="mutant", file=sys.stderr)
    for mutant in candidates:
        verdict, failed, seconds = run_mutant(exercise_id, setup, mutant.source, seed=seed, timeout_s=timeout_s)
        outcomes.append(Outcome(mutant, verdict, failed, round(seconds, 1)))
        if bar:
            bar.update()
            bar.set_postfix(survived=sum(o.verdict == "survived" for o in outcomes))
    if bar:
        bar.close()
    return Sweep(exercise_id, outcomes)


def render(result: Sweep, *, diffs: bool = True) -> str:
    if result.baseline != "passed":
        return f"{result.exercise_id}: the solution does not pass its checks ({result.baseline}); nothing swept"
    lines = [f"{result.exercise_id}: {len(result.outcomes)} mutants tried, {result.count('killed', 'unloadable')} "
             f"killed, {result.count('timeout')} timed out, {len(result.survivors)} survived"]
    for outcome in result.survivors:
        lines.append(f"  SURVIVED  {outcome.mutant.operator} (line {outcome.mutant.line})")
        if diffs:
            lines.extend("      " + line for line in outcome.mutant.diff.rstrip().splitlines())
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run-one"]:
        return _run_one(argv[1])
    parser = argparse.ArgumentParser(prog="python -m course.authoring.mutants", description=__doc__.splitlines()[0])
    parser.add_argument("lab", help="the lab's number, e.g. 03")
    parser.add_argument("--exercise", help="only this exercise, e.g. 03.claim")
    parser.add_argument("--operator", help="only mutation operators whose name contains this")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the checks' seed (fault runs)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per mutant")
    parser.add_argument("--list", action="store_true", help="print the mutants; run nothing")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    lab = manifest.load().lab(args.lab)
    ids = [e.id for e in lab.exercises if e.kind == "code" and (not args.exercise or e.id == args.exercise)]
    if not ids:
        parser.error(f"lab {lab.id} has no code exercise {args.exercise or ''}".rstrip())
    chosen = (lambda name: args.operator in name) if args.operator else (lambda name: True)
    if args.list:
        cells = notebooks.cells(_notebook(lab.id))
        for exercise_id in ids:
            found = [m for m in mutants(without_magics(cells.exercises[exercise_id]), demo_literals(cells.demos))
                     if chosen(m.operator)]
            print(f"== {exercise_id}: {len(found)} mutants (demo literals {demo_literals(cells.demos)})")
            for m in found:
                print(f"-- {m.operator} (line {m.line})\n{m.diff}")
        return 0
    results = []
    for exercise_id in ids:
        result = sweep(exercise_id, seed=args.seed, timeout_s=args.timeout, operators=chosen)
        results.append(result)
        print(render(result), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps([
            {"exercise": r.exercise_id, "baseline": r.baseline,
             "outcomes": [{**asdict(o.mutant), "verdict": o.verdict, "failed": o.failed, "seconds": o.seconds}
                          for o in r.outcomes]} for r in results], indent=1))
    print("\nexercise                  tried  killed  timeout  survived")
    for r in results:
        print(f"{r.exercise_id:<25} {len(r.outcomes):>5}  {r.count('killed', 'unloadable'):>6}  "
              f"{r.count('timeout'):>7}  {len(r.survivors):>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
