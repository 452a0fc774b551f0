"""Write red-team answer files: gen.py LAB, from the ANSWERS dict in answers_LAB.py."""
import importlib.util, sys
from pathlib import Path
here = Path(__file__).parent
lab = sys.argv[1]
spec = importlib.util.spec_from_file_location("a", here / f"answers_{lab}.py")
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
out = here / f"lab{lab}_answers"; out.mkdir(exist_ok=True)
for name, (exercise, expect, rule, code) in mod.ANSWERS.items():
    (out / f"{name}.py").write_text(f"# EXERCISE: {exercise}\n# EXPECT: {expect}\n# RULE: {rule}\n" + code.strip("\n") + "\n")
print(len(mod.ANSWERS), "answers written to", out)
