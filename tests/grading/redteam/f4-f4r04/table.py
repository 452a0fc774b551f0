"""Write lab04.md's tables from results_blind.tsv (and results_after.tsv, when it exists)."""
import csv
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def read(tag):
    path = HERE / f"results_{tag}.tsv"
    if not path.exists():
        return {}
    rows = {}
    for r in csv.reader(path.open(), delimiter="\t"):
        rows[r[0]] = r  # the last run of an answer counts
    return rows


def main():
    blind, after = read("blind"), read("after")
    out = ["# Round f4 (f4r04), lab 04: blind red team", "",
           "Answers in answers/; `run.py TAG` runs them through `python -m course check 04 --exercise`.",
           "kind: wrong (breaks the rule named), correct, arguable (not counted).", ""]
    for ex in ("04.fenced_ack", "04.heartbeat"):
        names = sorted(n for n, r in blind.items() if r[1] == ex)
        out += [f"## {ex}", "", "| answer | kind | rule it breaks | blind | s | after | s | message (blind) |",
                "|---|---|---|---|---|---|---|---|"]
        for n in names:
            b = blind[n]
            a = after.get(n, ["", "", "", "", "—", "—", ""])
            msg = b[6].replace("|", "\\|")[:220]
            out.append(f"| {n} | {b[2]} | {b[3]} | {b[4]} | {b[5]} | {a[4]} | {a[5]} | {msg} |")
        wrong = [blind[n] for n in names if blind[n][2] == "wrong"]
        correct = [blind[n] for n in names if blind[n][2] == "correct"]
        fp = [r[0] for r in wrong if r[4] == "pass"]
        ff = [r[0] for r in correct if r[4] == "fail"]
        out += ["", f"Blind: {len(fp)} of {len(wrong)} wrong answers passed ({', '.join(fp) or 'none'}); "
                    f"{len(ff)} of {len(correct)} correct answers failed ({', '.join(ff) or 'none'}).", ""]
        if after:
            fpa = [n for n in names if blind[n][2] == "wrong" and after.get(n, [""] * 5)[4] == "pass"]
            ffa = [n for n in names if blind[n][2] == "correct" and after.get(n, [""] * 5)[4] == "fail"]
            out += [f"After the fix: {len(fpa)} wrong answers pass ({', '.join(fpa) or 'none'}); "
                    f"{len(ffa)} correct answers fail ({', '.join(ffa) or 'none'}).", ""]
    wrong = [r for r in blind.values() if r[2] == "wrong"]
    fp = [r for r in wrong if r[4] == "pass"]
    out += ["## Lab 04", "", f"Blind false-pass rate: {len(fp)} of {len(wrong)} = "
            f"{100 * len(fp) / max(1, len(wrong)):.1f} %.", ""]
    notes = HERE / "notes.md"
    (HERE / "lab04.md").write_text("\n".join(out) + "\n" + (notes.read_text() if notes.exists() else ""))
    print("\n".join(out[-3:]))


if __name__ == "__main__":
    main()
