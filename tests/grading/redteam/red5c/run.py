"""Write a copy of labs/05 per answer (the 05.cancel_order cell replaced) and check each, one at a time."""
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
ANSWERS = Path(__file__).parent / "answers"
OUT = Path("/tmp/red5c_nbs")
CELL = "180efc81"

names = sys.argv[1:] or sorted(p.stem for p in ANSWERS.glob("*.py"))
nb = json.loads((ROOT / "labs/05_dual_write_outbox.ipynb").read_text())
for name in names:
    src = (ANSWERS / f"{name}.py").read_text()
    copy = json.loads(json.dumps(nb))
    for cell in copy["cells"]:
        if cell.get("id") == CELL:
            cell["source"] = src.splitlines(keepends=True)
    path = OUT / f"{name}.ipynb"
    path.write_text(json.dumps(copy))
    t0 = time.monotonic()
    p = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "05", str(path),
                        "--exercise", "05.cancel_order"], capture_output=True, text=True, cwd=ROOT)
    dt = time.monotonic() - t0
    out = (p.stdout + p.stderr).strip()
    (OUT / f"{name}.out").write_text(out)
    verdict = "PASS" if p.returncode == 0 else "FAIL"
    msg = re.sub(r"\s+", " ", out)[:600]
    print(f"{name}\t{verdict}\t{dt:.0f}s\t{msg}", flush=True)
