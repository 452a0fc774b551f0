"""After the fixes (helper fix12): re-run answers through run.py's `run`, into results_after.tsv and nb_after/.
Usage: rerun.py [name ...]: those answers; rerun.py --exercises 12.a,12.b: every answer of those exercises,
shared by as many runners as are started (the notebook copy, created exclusively, is the claim)."""
import sys

import run

run.OUT = run.HERE / "results_after.tsv"
run.WORK = run.HERE / "nb_after"
run.WORK.mkdir(exist_ok=True)

if __name__ == "__main__":
    args = sys.argv[1:]
    exercises = args[args.index("--exercises") + 1].split(",") if "--exercises" in args else None
    names = [a for a in args if not a.startswith("--") and (exercises is None or a not in ",".join(exercises))]
    for path in sorted((run.HERE / "answers").glob("*.py")):
        if exercises is not None:
            if run.header(path.read_text(), "exercise") not in exercises or not run.claim(path):
                continue
        elif (names and path.stem not in names) or path.stem in run.done():
            continue
        run.run(path)
