"""Run one answer the way a notebook kernel would: the lab's first two code cells (imports, set-up) and
the answer file executed in __main__'s namespace, then check(exercise) called from there.
usage: in_kernel.py ANSWER_NAME"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
name = sys.argv[1]
nb = json.loads((HERE.parents[3] / "labs" / "12_capstone_stayhub.ipynb").read_text())
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
namespace = sys.modules["__main__"].__dict__
for cell in code[:2]:
    exec(compile("".join(cell["source"]), "<setup>", "exec"), namespace)
exec(compile((HERE / "answers" / f"{name}.py").read_text(), "<answer>", "exec"), namespace)
namespace["check"]("12." + name.split("__")[0])
