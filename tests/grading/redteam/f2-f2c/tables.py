"""Write labNN.md from results_*.tsv: each answer, the rule it breaks (its first comment), verdicts.

usage: tables.py   (reads results_blind.tsv and, when there, results_after.tsv)
"""
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
TITLES = {"05": "05 — The dual write and the outbox", "06": "06 — Idempotency"}
PREFIXES = {"05": ("relay", "cancel"), "06": ("confirm", "send")}
EXERCISE = {"relay": "05.relay", "cancel": "05.cancel_order", "confirm": "06.confirm_booking",
            "send": "06.send_confirmation"}


def read(name: str) -> dict[str, list[str]]:
    path = HERE / name
    if not path.exists():
        return {}
    return {line.split("\t")[0]: line.rstrip("\n").split("\t") for line in path.read_text().splitlines() if line}


def rule(answer: pathlib.Path) -> str:
    return answer.read_text().splitlines()[0].lstrip("# ").replace("|", "/")


def main() -> None:
    blind, after = read("results_blind.tsv"), read("results_after.tsv")
    for lab, prefixes in PREFIXES.items():
        lines = [f"# Lab {TITLES[lab]}: round f2 (f2c), blind answers", ""]
        for prefix in prefixes:
            answers = sorted(HERE.glob(f"**/{prefix}_*.py"))
            rows = [(a, blind.get(a.stem), after.get(a.stem)) for a in answers]
            wrong = [r for r in rows if r[0].stem.split("_")[1].startswith("w")]
            right = [r for r in rows if r[0].stem.split("_")[1].startswith("c")]
            false_pass = [r for r in wrong if r[1] and r[1][2] == "PASS"]
            false_fail = [r for r in right if r[1] and r[1][2] == "FAIL"]
            lines += [f"## {EXERCISE[prefix]}", "",
                      f"Blind: {len(false_pass)} of {len(wrong)} wrong answers passed; "
                      f"{len(false_fail)} of {len(right)} correct answers failed.", "",
                      "| answer | rule it breaks | blind verdict (s, load) | after the fix | the check said (blind) |",
                      "|---|---|---|---|---|"]
            for answer, b, a in rows:
                bv = f"{b[2]} ({b[3]} s, {b[4]})" if b else "not run"
                av = f"{a[2]} ({a[3]} s, {a[4]})" if a else ""
                said = (b[5] if b and len(b) > 5 else "").replace("|", "/")[:400]
                lines.append(f"| `{answer.name}` | {rule(answer)} | {bv} | {av} | {said} |")
            lines.append("")
        notes = HERE / f"notes_{lab}.md"  # the round's judgement of each false pass and false fail, by hand
        if notes.exists():
            lines += ["", notes.read_text()]
        (HERE / f"lab{lab}.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
