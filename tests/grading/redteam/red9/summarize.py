"""Write labNN.md tables from answers/ and results/."""
import glob, os, re

HERE = os.path.dirname(os.path.abspath(__file__))


def verdict_message(text):
    lines = text.splitlines()
    head = lines[0] if lines else ""
    rc = re.search(r"rc=(\d+)", head)
    body = [l.strip() for l in lines[1:] if l.strip()]
    msg = " / ".join(body)[:600].replace("|", "\\|")
    return ("PASS" if rc and rc.group(1) == "0" else "FAIL"), head, msg


for lab in ("05", "06", "09"):
    rows, counts = [], {}
    for path in sorted(glob.glob(f"{HERE}/answers/{lab}.*.py")):
        name = os.path.basename(path)[:-3]
        exercise, label = name.split("__")
        first = open(path).readline().lstrip("# ").strip()
        kind = "correct" if first.startswith("correct") else ("borderline" if first.startswith("borderline") else "wrong")
        result = f"{HERE}/results/{name}.txt"
        if os.path.exists(result):
            verdict, head, msg = verdict_message(open(result).read())
        else:
            verdict, head, msg = "NOT RUN", "", ""
        flag = ""
        if kind == "wrong" and verdict == "PASS":
            flag = "**FALSE PASS**"
        if kind == "correct" and verdict == "FAIL":
            flag = "**FALSE FAIL**"
        c = counts.setdefault(exercise, {"wrong": 0, "correct": 0, "borderline": 0, "fp": 0, "ff": 0})
        c[kind] += 1
        c["fp"] += flag == "**FALSE PASS**"
        c["ff"] += flag == "**FALSE FAIL**"
        rows.append(f"| {exercise} | `{label}.py` | {first.replace('|', '/')} | {verdict} {flag} | {head} | {msg} |")
    with open(f"{HERE}/lab{lab}.md", "w") as out:
        out.write(f"# Lab {lab}: blind red-team answers (phase 1, written without reading the checks)\n\n")
        out.write("Each answer replaced the exercise's cell in a copy of the learner notebook and was judged by "
                  "`python -m course check NN copy.ipynb --exercise NN.name` (`run.py`).\n\n")
        for exercise, c in counts.items():
            out.write(f"- {exercise}: {c['wrong']} wrong ({c['fp']} passed: false passes), "
                      f"{c['correct']} correct ({c['ff']} failed: false fails), {c['borderline']} borderline\n")
        out.write("\n| exercise | answer | rule it breaks (or correct) | verdict | run | the check's message |\n"
                  "|---|---|---|---|---|---|\n")
        out.write("\n".join(rows) + "\n")
    print(lab, counts)
