#!/usr/bin/env python3
"""gshmem against NVSHMEM on NVIDIA's own perftests, row by row.

usage: nvshmem_perftests_vs.py BUILD_DIR [--title TEXT] [--out-dir DIR]

Reads what `scripts/nvshmem_programs.sh --vs-nvshmem` left in BUILD_DIR:
programs.tsv, and for every perftest run the log of gshmem's build
(logs/<target>.np2[.a<k>].run.log) and of NVSHMEM's build, run right after
it with the same arguments (logs-nvshmem/<same name>), each with its exit
status in <log>.rc. Both print NVSHMEM's machine-readable rows
(NVSHMEM_MACHINE_READABLE_OUTPUT=1, perftest/common/utils.cu):

    &&&& PERF <table>___<scope>___size__<bytes>___<metric> <value> <+|-><unit>

'-' marks a figure where lower is better (latency), '+' one where higher is
better (bandwidth, message rate). A row of the comparison is one such figure
present in both logs, matched by program, argument line, table, scope, size,
metric and occurrence. Its ratio says how gshmem stands, the same way for
every metric: time gshmem / NVSHMEM, rate NVSHMEM / gshmem, so <= 1.0 means
gshmem is at or ahead.

Writes into --out-dir (default BUILD_DIR):
  vs_nvshmem_perftests.md     per-program summary, then every row (program |
                              args | table | scope | size | metric | NVSHMEM |
                              gshmem | ratio), and the runs that gave no rows
  vs_nvshmem_perftests.jsonl  one JSON object per row
  vs_nvshmem_perftests.png    the ratios per program, on a log scale (needs
                              matplotlib; left out, saying so, without it)
and prints the Markdown. Exit status: 0 when the files were written (whatever
the ratios are), 1 when there was nothing to compare, 2 on bad arguments.
Needs only the Python standard library (matplotlib for the plot).
"""
import argparse
import json
import math
import os
import re
import sys
from collections import OrderedDict, defaultdict

RUN_LOG = re.compile(r"^(?P<target>.+)\.np(?P<np>\d+)(?:\.a(?P<k>\d+))?\.run\.log$")
PERF_ROW = re.compile(
    r"^&&&& PERF (?P<table>.+?)___(?P<scope>.*?)___size__(?P<size>\d+)___(?P<metric>\S+)"
    r"\s+(?P<value>\S+)\s+(?P<sign>[-+])(?P<unit>\S*)\s*$")
OUT_NAME = "vs_nvshmem_perftests"


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def exit_status(log_path):
    text = read(log_path + ".rc")
    if text is None or not text.strip():
        return None
    try:
        return int(text.split()[-1])
    except ValueError:
        return None


def parse_rows(text):
    """The machine-readable rows of one run, in order, each with its
    occurrence number among rows of the same key (a program may print the
    same table twice, e.g. once per data type under one name)."""
    rows = OrderedDict()
    seen = defaultdict(int)
    for line in (text or "").splitlines():
        m = PERF_ROW.match(line.strip())
        if not m:
            continue
        try:
            value = float(m.group("value"))
        except ValueError:
            continue
        if not math.isfinite(value):
            continue
        key = (m.group("table"), m.group("scope"), int(m.group("size")), m.group("metric"))
        occurrence = seen[key]
        seen[key] += 1
        rows[key + (occurrence,)] = dict(value=value, unit=m.group("unit"),
                                         better="lower" if m.group("sign") == "-" else "higher")
    return rows


def ratio_of(gshmem, nvshmem, better):
    """How gshmem stands: <= 1.0 at or ahead; None where undefined."""
    if better == "lower":
        return gshmem / nvshmem if nvshmem > 0 else None
    return nvshmem / gshmem if gshmem > 0 else None


def load_programs(build_dir):
    programs = OrderedDict()
    path = os.path.join(build_dir, "programs.tsv")
    text = read(path)
    if text is None:
        raise SystemExit(f"nvshmem_perftests_vs.py: {path} is missing (run scripts/nvshmem_programs.sh first)")
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[2] == "perftest":
            programs[parts[0].replace("/", ".")] = parts[0]
    return programs


def run_arguments(text):
    first = (text or "").splitlines()[:1]
    if first and first[0].startswith("# mpirun"):
        words = first[0].split()
        return " ".join(words[5:])  # "# mpirun -np N program" then the arguments
    return ""


def compare(build_dir):
    """Returns (rows, runs): the matched rows, and one record per run pair."""
    programs = load_programs(build_dir)
    logs = os.path.join(build_dir, "logs")
    nv_logs = os.path.join(build_dir, "logs-nvshmem")
    rows, runs = [], []
    names = sorted(os.listdir(logs)) if os.path.isdir(logs) else []
    for fname in names:
        m = RUN_LOG.match(fname)
        if not m or m.group("target") not in programs:
            continue
        target = m.group("target")
        g_path, n_path = os.path.join(logs, fname), os.path.join(nv_logs, fname)
        g_text, n_text = read(g_path), read(n_path)
        g_rows, n_rows = parse_rows(g_text), parse_rows(n_text)
        run = dict(program=programs[target].split("/")[-1], path=programs[target],
                   args=run_arguments(g_text), args_index=int(m.group("k") or 1),
                   gshmem_exit=exit_status(g_path), nvshmem_exit=exit_status(n_path) if n_text is not None else None,
                   nvshmem_ran=n_text is not None, gshmem_rows=len(g_rows), nvshmem_rows=len(n_rows), compared=0)
        for key, g in g_rows.items():
            n = n_rows.get(key)
            if n is None or n["better"] != g["better"]:
                continue
            r = ratio_of(g["value"], n["value"], g["better"])
            if r is None:
                continue
            table, scope, size, metric, occurrence = key
            rows.append(OrderedDict(
                program=run["program"], args=run["args"], args_index=run["args_index"], table=table,
                scope=scope, size=size, metric=metric, occurrence=occurrence, unit=g["unit"],
                better=g["better"], nvshmem=n["value"], gshmem=g["value"], ratio=round(r, 4)))
            run["compared"] += 1
        runs.append(run)
    return rows, runs


def human_size(size):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= div and size % div == 0:
            return f"{size // div} {unit}"
    return f"{size} B"


def fmt(value):
    return f"{value:.3f}" if abs(value) < 1000 else f"{value:.1f}"


def markdown(title, rows, runs):
    out = [f"# {title}", "",
           "Each perftest of NVIDIA's built twice (against gshmem's compatibility headers, no -rdc; "
           "against NVSHMEM, -rdc) and run one after the other on the same GPUs with the same "
           "arguments. Ratio: time gshmem / NVSHMEM, rate NVSHMEM / gshmem; <= 1.00 means gshmem "
           "is at or ahead.", ""]
    behind = [r for r in rows if r["ratio"] > 1.0]
    out.append(f"**{len(rows)} rows compared: {len(rows) - len(behind)} at or ahead (ratio <= 1.00), "
               f"{len(behind)} behind.**")
    out += ["", "## Per program", "",
            "| program | args | rows | ratio min | median | max | rows > 1.00 | exit (gshmem / NVSHMEM) |",
            "|---|---|---|---|---|---|---|---|"]
    by_run = defaultdict(list)
    for r in rows:
        by_run[(r["program"], r["args_index"])].append(r["ratio"])
    for run in runs:
        ratios = sorted(by_run.get((run["program"], run["args_index"]), []))
        exits = f"{run['gshmem_exit']} / {run['nvshmem_exit'] if run['nvshmem_ran'] else 'not run'}"
        if ratios:
            med = ratios[len(ratios) // 2]
            over = sum(1 for x in ratios if x > 1.0)
            out.append(f"| {run['program']} | `{run['args'] or '-'}` | {len(ratios)} | {ratios[0]:.2f} | "
                       f"{med:.2f} | {ratios[-1]:.2f} | {over} | {exits} |")
        else:
            out.append(f"| {run['program']} | `{run['args'] or '-'}` | 0 | - | - | - | - | {exits} "
                       f"(rows: gshmem {run['gshmem_rows']}, NVSHMEM {run['nvshmem_rows']}) |")
    if behind:
        out += ["", "## Rows behind NVSHMEM (ratio > 1.00), worst first", "",
                "| program | table | scope | size | metric | NVSHMEM | gshmem | ratio |", "|---|---|---|---|---|---|---|---|"]
        for r in sorted(behind, key=lambda r: -r["ratio"]):
            out.append(f"| {r['program']} | {r['table']} | {r['scope']} | {human_size(r['size'])} | "
                       f"{r['metric']} ({r['unit']}) | {fmt(r['nvshmem'])} | {fmt(r['gshmem'])} | {r['ratio']:.2f} |")
    out += ["", "## Every row", "",
            "| program | table | scope | size | metric | NVSHMEM | gshmem | ratio |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['program']} | {r['table']} | {r['scope']} | {human_size(r['size'])} | "
                   f"{r['metric']} ({r['unit']}) | {fmt(r['nvshmem'])} | {fmt(r['gshmem'])} | {r['ratio']:.2f} |")
    return "\n".join(out) + "\n"


def plot(path, rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    programs = list(OrderedDict.fromkeys(r["program"] for r in rows))
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(programs) + 3), 5))
    for i, p in enumerate(programs):
        ratios = [r["ratio"] for r in rows if r["program"] == p]
        xs = [i + (j - (len(ratios) - 1) / 2) * min(0.7 / max(len(ratios), 1), 0.08) for j in range(len(ratios))]
        ax.scatter(xs, ratios, s=14, color=["tab:green" if x <= 1.0 else "tab:red" for x in ratios])
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_xticks(range(len(programs)))
    ax.set_xticklabels([p.replace("shmem_", "") for p in programs], rotation=45, ha="right")
    ax.set_ylabel("time: gshmem / NVSHMEM\nrate: NVSHMEM / gshmem\n(below 1: gshmem ahead)")
    ax.set_title("NVIDIA's perftests: gshmem against NVSHMEM, same run, same arguments")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--title", default="NVIDIA's perftests: gshmem against NVSHMEM")
    ap.add_argument("--out-dir")
    a = ap.parse_args()
    if not os.path.isdir(a.build_dir):
        print(f"nvshmem_perftests_vs.py: no such folder: {a.build_dir}", file=sys.stderr)
        return 2
    out_dir = a.out_dir or a.build_dir
    os.makedirs(out_dir, exist_ok=True)
    rows, runs = compare(a.build_dir)
    text = markdown(a.title, rows, runs)
    with open(os.path.join(out_dir, OUT_NAME + ".md"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, OUT_NAME + ".jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(text, end="")
    if rows and not plot(os.path.join(out_dir, OUT_NAME + ".png"), rows):
        print("(no plot: matplotlib is missing; pip install matplotlib)")
    if not rows:
        print("nvshmem_perftests_vs.py: no row was printed by both builds", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
