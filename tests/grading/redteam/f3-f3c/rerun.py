"""After the fixes (helper fix12): re-run answers through run.py's `run`, into results_after.tsv and nb_after/.
Usage: rerun.py [name ...] (all answers when none are named; answers already in results_after.tsv are skipped)."""
import pathlib, sys

import run

run.OUT = run.HERE / "results_after.tsv"
run.WORK = run.HERE / "nb_after"
run.WORK.mkdir(exist_ok=True)

if __name__ == "__main__":
    names = sys.argv[1:]
    for path in sorted((run.HERE / "answers").glob("*.py")):
        if (not names or path.stem in names) and path.stem not in run.done():
            run.run(path)
