"""Write lab03.md / lab04.md from results_blind.tsv (and results_after.tsv when present)."""
import pathlib, collections
HERE = pathlib.Path(__file__).resolve().parent


def load(name):
    p = HERE / name
    rows = {}
    if p.exists():
        for line in p.read_text().splitlines():
            f = line.split("\t")
            rows[f[0]] = f
    return rows


def main():
    blind, after = load("results_blind.tsv"), load("results_after.tsv")
    for lab, prefixes in (("03", ("claim_",)), ("04", ("fenced_ack_", "heartbeat_"))):
        out = [f"# Lab {lab}, red team f2-f2b (blind round, 2026-12-02)", "",
               "Each answer in `answers/` (header line: expected verdict | rule it breaks | the mistake). "
               "Blind: run before any check or test was read. After: the same answer after phase 2's fixes.", ""]
        stats = collections.defaultdict(lambda: [0, 0, 0, 0])
        out.append("| answer | exercise | expected | rule | mistake | blind | s | after | s | blind message (first line that tells) |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        for path in sorted(p for p in (HERE / "answers").glob("*.py") if p.name.startswith(prefixes)):
            key = f"{path.parent.name}/{path.name}"
            kind, rule, why = [s.strip() for s in path.read_text().splitlines()[0].lstrip("# ").split("|", 2)]
            b = blind.get(key); a = after.get(key)
            if b is None:
                continue
            ex = b[1]
            s = stats[ex]
            if kind == "wrong":
                s[0] += 1; s[1] += b[3] == "PASS"
            else:
                s[2] += 1; s[3] += b[3] == "FAIL"
            msg = b[6]
            tell = [m for m in msg.split(" / ") if m.startswith("✗")] or [msg.split(" / ")[1] if " / " in msg else msg]
            bad = (kind == "wrong") == (b[3] == "PASS")
            flag = " **FALSE " + ("PASS" if kind == "wrong" else "FAIL") + "**" if bad else ""
            out.append(f"| {path.name} | {lab}.{ex} | {kind} | {rule} | {why} | {b[3]}{flag} | {b[4]} | "
                       f"{a[3] if a else ''} | {a[4] if a else ''} | {tell[0][:200].replace('|', '/')} |")
        out += ["", "| exercise | wrong tried | wrong passed (false pass) | correct tried | correct failed (false fail) |",
                "|---|---|---|---|---|"]
        tw = tp = tc = tf = 0
        for ex, (w, p, c, f) in stats.items():
            out.append(f"| {lab}.{ex} | {w} | {p} | {c} | {f} |"); tw += w; tp += p; tc += c; tf += f
        out.append(f"| lab {lab} | {tw} | {tp} ({100 * tp / max(tw, 1):.1f} %) | {tc} | {tf} |")
        judgement = HERE / f"judgement_lab{lab}.md"  # written by hand, kept across runs of this script
        if judgement.exists():
            out += ["", judgement.read_text().rstrip()]
        (HERE / f"lab{lab}.md").write_text("\n".join(out) + "\n")


main()
