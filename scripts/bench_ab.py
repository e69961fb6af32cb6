#!/usr/bin/env python3
"""Two sets of benchmark results (scripts/bench_ab.sh: each side's rounds of
bench.sh on the same GPUs) row by row.

usage: bench_ab.py DIR_A DIR_B [--label-a A] [--label-b B] [--out ab.md] [--plot]

Each DIR holds one or more bench.sh result folders (their *.jsonl rows, read
recursively). A row is identified by every field but its figures (binary,
name, PEs, size or n, issuer, metric, ...). Per row and side: the median of
the rounds' values, and of the floors. The ratio reads "B against A": time
B / A, rate A / B, so above 1 means B is slower. A difference is beyond the
spread when every round of one side is worse than every round of the other.
Writes the Markdown table (worst first) and, beside it, the same as JSON
lines (ab.jsonl); with --plot also ab.png (every row's ratio, worst first,
the rows beyond the spread marked, the floors' ratios beside them) where
matplotlib is installed. Exit status 0 when written, 1 when a side has no rows.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize  # noqa: E402  (the benchmark's rows: how they are read and told apart)


def row_key(row):
    """One figure: the binary and what summarize.py tells rows apart by."""
    return (row.get("binary"),) + summarize.row_key(row)


def load_side(folder):
    """{key: {"row": first row, "values": [...], "floors": [...]}} over every round."""
    rows = {}
    for r in summarize.load_rows(folder):
        if not isinstance(r.get("value"), (int, float)):
            continue
        e = rows.setdefault(row_key(r), {"row": r, "values": [], "floors": []})
        e["values"].append(float(r["value"]))
        if isinstance(r.get("floor"), (int, float)):
            e["floors"].append(float(r["floor"]))
    return rows


def lower_is_better(row):
    if "better" in row:
        return row["better"] == "lower"
    return row.get("unit") != "GB/s"


def b_against_a(a, b, lower):
    """B / A for times, A / B for rates: above 1 means B is slower."""
    if a <= 0 or b <= 0:
        return None
    return b / a if lower else a / b


def describe(row):
    size = row.get("size", row.get("n"))
    what = row.get("name", "?")
    if size is not None:
        what += f" {'n=' if 'n' in row and 'size' not in row else ''}{size}"
    if row.get("threads") is not None:
        what += f" x{row['threads']}"
    return f"{row.get('binary', '')} | {what} | {row.get('metric', '')}"


def compare(side_a, side_b):
    out = []
    for key in side_a.keys() & side_b.keys():
        a, b = side_a[key], side_b[key]
        lower = lower_is_better(a["row"])
        ma, mb = statistics.median(a["values"]), statistics.median(b["values"])
        ratio = b_against_a(ma, mb, lower)
        if ratio is None:
            continue
        # Disjoint ranges of rounds; one round a side says nothing of the spread.
        beyond = None
        if len(a["values"]) >= 2 and len(b["values"]) >= 2:
            beyond = min(b["values"]) > max(a["values"]) or max(b["values"]) < min(a["values"])
        floor_ratio = None
        if a["floors"] and b["floors"]:
            floor_ratio = b_against_a(statistics.median(a["floors"]), statistics.median(b["floors"]), lower)
        out.append({"row": describe(a["row"]), "unit": a["row"].get("unit", ""), "a": ma, "b": mb,
                    "ratio": ratio, "beyond_spread": beyond, "rounds": [len(a["values"]), len(b["values"])],
                    "floor_ratio": floor_ratio})
    out.sort(key=lambda e: -e["ratio"])
    return out


def plot(rows, path, label_a, label_b):
    """ab.png: one bar per row (its ratio, worst on top), a dot for its floor's ratio."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench_ab.py: matplotlib is not installed: no plot", file=sys.stderr)
        return False
    shown = rows if len(rows) <= 60 else rows[:30] + rows[-30:]  # the 30 worst and the 30 best
    fig, ax = plt.subplots(figsize=(11, 0.22 * len(shown) + 1.6))
    y = list(range(len(shown)))[::-1]
    colors = ["tab:red" if e["ratio"] > 1 and e["beyond_spread"] else
              "tab:green" if e["ratio"] < 1 and e["beyond_spread"] else "tab:gray" for e in shown]
    ax.barh(y, [e["ratio"] - 1 for e in shown], left=1, color=colors)
    fy = [yy for yy, e in zip(y, shown) if e["floor_ratio"] is not None]
    fx = [e["floor_ratio"] for e in shown if e["floor_ratio"] is not None]
    ax.scatter(fx, fy, marker="|", color="black", s=60, label="the row's floor (same ratio)")
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([e["row"] for e in shown], fontsize=6)
    ax.set_xlabel(f"{label_b} against {label_a}: time {label_b} / {label_a}, above 1: {label_b} slower\n"
                  "red / green: slower / faster beyond the spread of the rounds")
    title = f"{label_b} against {label_a}: {len(rows)} rows"
    if len(shown) < len(rows):
        title += " (the 30 worst and the 30 best shown)"
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir_a")
    ap.add_argument("dir_b")
    ap.add_argument("--label-a", default="A")
    ap.add_argument("--label-b", default="B")
    ap.add_argument("--out", default="ab.md")
    ap.add_argument("--plot", action="store_true", help="also ab.png (needs matplotlib)")
    args = ap.parse_args()
    side_a, side_b = load_side(args.dir_a), load_side(args.dir_b)
    if not side_a or not side_b:
        print(f"bench_ab.py: no rows in {args.dir_a if not side_a else args.dir_b}", file=sys.stderr)
        return 1
    rows = compare(side_a, side_b)
    ratios = [e["ratio"] for e in rows]
    floors = [e["floor_ratio"] for e in rows if e["floor_ratio"] is not None]
    slower = [e for e in rows if e["ratio"] > 1 and e["beyond_spread"]]
    faster = [e for e in rows if e["ratio"] < 1 and e["beyond_spread"]]
    la, lb = args.label_a, args.label_b
    lines = [f"# {lb} against {la}, same GPUs, same run", "",
             f"Ratio: time {lb} / {la}, rate {la} / {lb}; above 1 means {lb} is slower. Medians of each side's "
             f"rounds (rounds alternate which side goes first); 'beyond the spread': every round of one side is "
             f"worse than every round of the other ('-' with one round a side).", "",
             f"**{len(rows)} rows: median ratio {statistics.median(ratios):.3f}; {len(slower)} slower beyond the "
             f"spread, {len(faster)} faster beyond it.** Floors (code neither side changes): median "
             f"{statistics.median(floors):.3f} over {len(floors)} rows." if floors else
             f"**{len(rows)} rows: median ratio {statistics.median(ratios):.3f}; {len(slower)} slower beyond the "
             f"spread, {len(faster)} faster beyond it.**", "",
             f"| binary | benchmark | metric | {la} | {lb} | ratio | beyond the spread | floor ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for e in rows:
        fr = f"{e['floor_ratio']:.3f}" if e["floor_ratio"] is not None else "-"
        lines.append(f"| {e['row']} | {e['a']:.4g} {e['unit']} | {e['b']:.4g} {e['unit']} | {e['ratio']:.3f} | "
                     f"{'-' if e['beyond_spread'] is None else 'yes' if e['beyond_spread'] else 'no'} | {fr} |")
    only = len(side_a.keys() ^ side_b.keys())
    if only:
        lines += ["", f"{only} rows were measured by one side only (left out)."]
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.splitext(args.out)[0] + ".jsonl", "w") as f:
        for e in rows:
            f.write(json.dumps(e) + "\n")
    print("\n".join(lines[:5]))
    print(f"bench_ab.py: {len(rows)} rows -> {args.out}")
    if args.plot and plot(rows, os.path.splitext(args.out)[0] + ".png", la, lb):
        print(f"bench_ab.py: plot -> {os.path.splitext(args.out)[0]}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
