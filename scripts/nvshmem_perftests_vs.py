#!/usr/bin/env python3
"""gshmem against NVSHMEM on NVIDIA's own perftests, row by row.

usage: nvshmem_perftests_vs.py BUILD_DIR [--title TEXT] [--out-dir DIR] [--variant remote | --build NAME | --between NAME]

Reads what `scripts/nvshmem_programs.sh --vs-nvshmem` left in BUILD_DIR:
programs.tsv, and for every perftest run the log of gshmem's build
(logs/<target>.np2[.a<k>].run.log) and of NVSHMEM's build, run right after
it with the same arguments (logs-nvshmem/<same name>), each with its exit
status in <log>.rc; with `--repeat N` rounds 2..N of the same pair in
<target>.np2[.a<k>].r<round>.run.log. Both print NVSHMEM's machine-readable rows
(NVSHMEM_MACHINE_READABLE_OUTPUT=1, perftest/common/utils.cu):

    &&&& PERF <table>___<scope>___size__<bytes>___<metric> <value> <+|-><unit>

'-' marks a figure where lower is better (latency), '+' one where higher is
better (bandwidth, message rate). A row of the comparison is one such figure
present in both logs, matched by program, argument line, table, scope, size,
metric and occurrence. Its ratio says how gshmem stands, the same way for
every metric: time gshmem / NVSHMEM, rate NVSHMEM / gshmem, so <= 1.0 means
gshmem is at or ahead. Tables whose figures NVIDIA's program leaves
undefined (UNDEFINED_TABLES: sync_latency's sync_all_device) are not
compared; the Markdown lists them under "Left out", with why.

With several rounds each side's figure is the median of its rounds, and
the ratio is that of the medians. A row behind (ratio > 1.00) is then also
judged against the run-to-run spread: "beyond the spread" when gshmem's
best round is worse than NVSHMEM's worst one (the two ranges do not
overlap), else "within the spread" (the difference is smaller than what
either build varies between its own rounds). With one round every row
behind counts as beyond (nothing is known of the spread).

--variant remote reads the runs of `nvshmem_programs.sh --remote` (every
peer remote, both libraries through UCX) from logs-remote/ and
logs-nvshmem-remote/ instead, and writes vs_nvshmem_perftests_remote.*.
--build NAME reads gshmem's side from the perftests that
`nvshmem_programs.sh --build-variant NAME=FLAGS` built a second time
(logs-build-NAME/), NVSHMEM's from logs-nvshmem/ as usual (the variant ran
in the same rounds), and writes vs_nvshmem_perftests_NAME.*.
--between NAME compares gshmem's two builds with each other instead, from
the two tables written before (vs_nvshmem_perftests.jsonl and
vs_nvshmem_perftests_NAME.jsonl in BUILD_DIR): per row the default build's
ratio over the NAME build's (NVSHMEM's figure cancels: time default /
NAME, rate NAME / default, so above 1.0 means the default build is slower),
per program its median and range; writes vs_build_NAME.{md,png}.

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

RUN_LOG = re.compile(r"^(?P<target>.+)\.np(?P<np>\d+)(?:\.a(?P<k>\d+))?(?:\.r(?P<round>\d+))?\.run\.log$")
PERF_ROW = re.compile(
    r"^&&&& PERF (?P<table>.+?)___(?P<scope>.*?)___size__(?P<size>\d+)___(?P<metric>\S+)"
    r"\s+(?P<value>\S+)\s+(?P<sign>[-+])(?P<unit>\S*)\s*$")
OUT_NAME = "vs_nvshmem_perftests"

# Tables whose figures NVIDIA's program itself leaves undefined, by
# (program, table), with the reason: never compared, for either library;
# the Markdown lists them under "Left out". sync_latency (NVSHMEM 3.4.5,
# perftest/device/coll/sync_latency.cu) launches its sync_all kernels, whose
# parameters are (team, iter) like the team sync's, with an argument list of
# one entry ({&skip}, then {&iter}), so each kernel's loop count is read from
# past the end of that list: whatever the host stack holds there. Measured
# (1 x H200, 4 PEs, 2026-12-01): gshmem's build printed 0.011-0.016 us a
# sync (its kernels looped a handful of times or not at all) and NVSHMEM's
# run of the same binary layout did not end in 60 s; in earlier runs both
# happened to read a plausible count.
UNDEFINED_TABLES = {
    ("sync_latency", "sync_all_device"):
        "the program launches its sync_all kernels, which take (team, iter), with a one-entry argument "
        "list, so their loop count is read from past its end (undefined; the team sync rows are timed "
        "as meant)",
}


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


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def beyond_spread(g_values, n_values, better):
    """True when gshmem's best round is worse than NVSHMEM's worst one."""
    if better == "lower":
        return min(g_values) > max(n_values)
    return max(g_values) < min(n_values)


def compare(build_dir, variant="", build=""):
    """Returns (rows, runs): the matched rows, and one record per run pair
    (a program and argument line, over all its rounds). variant: "" or
    "remote" (the logs of nvshmem_programs.sh --remote); build: "" or the
    NAME of a --build-variant build, whose logs stand in for gshmem's."""
    programs = load_programs(build_dir)
    suffix = "-" + variant if variant else ""
    logs = os.path.join(build_dir, "logs-build-" + build if build else "logs" + suffix)
    nv_logs = os.path.join(build_dir, "logs-nvshmem" + suffix)
    rows, runs = [], []
    names = sorted(os.listdir(logs)) if os.path.isdir(logs) else []
    # (target, np, k) -> [(round, file name)], rounds in order
    pairs = OrderedDict()
    for fname in names:
        m = RUN_LOG.match(fname)
        if not m or m.group("target") not in programs:
            continue
        key = (m.group("target"), m.group("np"), int(m.group("k") or 1))
        pairs.setdefault(key, []).append((int(m.group("round") or 1), fname))
    for (target, np_text, k), rounds in pairs.items():
        rounds.sort()
        g_rounds, n_rounds = [], []
        first_g_text = None
        # Runs at other PE counts than 2 (the collective perftests at 4, say)
        # are rows of their own: the PE count is part of the program's label.
        label = programs[target].split("/")[-1] + ("" if np_text == "2" else f" np={np_text}")
        run = dict(program=label, pes=int(np_text), path=programs[target], args="", args_index=k,
                   gshmem_exit=None, nvshmem_exit=None, nvshmem_ran=False, gshmem_rows=0, nvshmem_rows=0,
                   compared=0, rounds=len(rounds))
        for _round, fname in rounds:
            g_path, n_path = os.path.join(logs, fname), os.path.join(nv_logs, fname)
            g_text, n_text = read(g_path), read(n_path)
            if first_g_text is None:
                first_g_text = g_text
                run["gshmem_exit"] = exit_status(g_path)
                run["nvshmem_exit"] = exit_status(n_path) if n_text is not None else None
            else:  # a later round that failed shows in the exit column
                for side, path, text in (("gshmem_exit", g_path, g_text), ("nvshmem_exit", n_path, n_text)):
                    rc = exit_status(path) if text is not None else None
                    if rc not in (None, 0):
                        run[side] = rc
            run["nvshmem_ran"] = run["nvshmem_ran"] or n_text is not None
            g_rounds.append(parse_rows(g_text))
            n_rounds.append(parse_rows(n_text))
        run["args"] = run_arguments(first_g_text)
        run["gshmem_rows"] = len(g_rounds[0]) if g_rounds else 0
        run["nvshmem_rows"] = len(n_rounds[0]) if n_rounds else 0
        base = programs[target].split("/")[-1]
        for key, g in (g_rounds[0] if g_rounds else {}).items():
            why = UNDEFINED_TABLES.get((base, key[0]))
            if why:
                left = run.setdefault("left_out", OrderedDict()).setdefault(key[0], [0, why])
                left[0] += 1
                continue
            g_values = [r[key]["value"] for r in g_rounds if key in r and r[key]["better"] == g["better"]]
            n_values = [r[key]["value"] for r in n_rounds if key in r and r[key]["better"] == g["better"]]
            if not g_values or not n_values:
                continue
            g_med, n_med = median(g_values), median(n_values)
            r = ratio_of(g_med, n_med, g["better"])
            if r is None:
                continue
            table, scope, size, metric, occurrence = key
            row = OrderedDict(
                program=run["program"], pes=run["pes"], args=run["args"], args_index=run["args_index"], table=table,
                scope=scope, size=size, metric=metric, occurrence=occurrence, unit=g["unit"],
                better=g["better"], nvshmem=n_med, gshmem=g_med, ratio=round(r, 4))
            if len(rounds) > 1:
                row["nvshmem_rounds"] = n_values
                row["gshmem_rounds"] = g_values
                row["beyond_spread"] = r > 1.0 and beyond_spread(g_values, n_values, g["better"])
            else:
                row["beyond_spread"] = r > 1.0
            rows.append(row)
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
    rounds = max([run.get("rounds", 1) for run in runs] or [1])
    line = (f"**{len(rows)} rows compared: {len(rows) - len(behind)} at or ahead (ratio <= 1.00), "
            f"{len(behind)} behind")
    if rounds > 1:
        beyond = sum(1 for r in behind if r["beyond_spread"])
        line += (f"; {beyond} of them beyond the run-to-run spread (gshmem's best of {rounds} rounds slower "
                 f"than NVSHMEM's worst), {len(behind) - beyond} within it")
        out[-2] = out[-2] + (f" Each pair ran {rounds} times, alternating which build went first; figures "
                             f"are medians of the rounds.")
    out.append(line + ".**")
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
            med = median(ratios)
            over = sum(1 for x in ratios if x > 1.0)
            out.append(f"| {run['program']} | `{run['args'] or '-'}` | {len(ratios)} | {ratios[0]:.2f} | "
                       f"{med:.2f} | {ratios[-1]:.2f} | {over} | {exits} |")
        else:
            out.append(f"| {run['program']} | `{run['args'] or '-'}` | 0 | - | - | - | - | {exits} "
                       f"(rows: gshmem {run['gshmem_rows']}, NVSHMEM {run['nvshmem_rows']}) |")
    left = [(run["program"], table, n, why) for run in runs for table, (n, why) in run.get("left_out", {}).items()]
    if left:
        out += ["", "## Left out", "",
                "Tables whose figures the program itself leaves undefined, for either library; not compared.",
                "", "| program | table | rows | why |", "|---|---|---|---|"]
        for program, table, n, why in left:
            out.append(f"| {program} | {table} | {n} | {why} |")
    if behind:
        out += ["", "## Rows behind NVSHMEM (ratio > 1.00), worst first", "",
                "| program | table | scope | size | metric | NVSHMEM | gshmem | ratio | beyond the spread |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r in sorted(behind, key=lambda r: -r["ratio"]):
            if "gshmem_rounds" in r:
                spread = (f"{'yes' if r['beyond_spread'] else 'no'} (NVSHMEM {fmt(min(r['nvshmem_rounds']))}-"
                          f"{fmt(max(r['nvshmem_rounds']))}, gshmem {fmt(min(r['gshmem_rounds']))}-"
                          f"{fmt(max(r['gshmem_rounds']))})")
            else:
                spread = "one round: unknown"
            out.append(f"| {r['program']} | {r['table']} | {r['scope']} | {human_size(r['size'])} | "
                       f"{r['metric']} ({r['unit']}) | {fmt(r['nvshmem'])} | {fmt(r['gshmem'])} | {r['ratio']:.2f} | "
                       f"{spread} |")
    out += ["", "## Every row", "",
            "| program | table | scope | size | metric | NVSHMEM | gshmem | ratio |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['program']} | {r['table']} | {r['scope']} | {human_size(r['size'])} | "
                   f"{r['metric']} ({r['unit']}) | {fmt(r['nvshmem'])} | {fmt(r['gshmem'])} | {r['ratio']:.2f} |")
    return "\n".join(out) + "\n"


def plot(path, rows, ylabel="time: gshmem / NVSHMEM\nrate: NVSHMEM / gshmem\n(below 1: gshmem ahead)",
         plot_title="NVIDIA's perftests: gshmem against NVSHMEM, same run, same arguments"):
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
    ax.set_ylabel(ylabel)
    ax.set_title(plot_title)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


ROW_KEY = ("program", "args_index", "table", "scope", "size", "metric", "occurrence")


def between(build_dir, name, out_dir, title):
    """--between NAME: gshmem's default build against its NAME build, from
    the two side-by-side tables. Returns the process exit status."""
    tables = [os.path.join(build_dir, OUT_NAME + suffix + ".jsonl") for suffix in ("", "_" + name)]
    loaded = []
    for path in tables:
        text = read(path)
        if text is None:
            print(f"nvshmem_perftests_vs.py: no {path} (run with and without --build {name} first)", file=sys.stderr)
            return 1
        loaded.append({tuple(r.get(k) for k in ROW_KEY): r for r in map(json.loads, text.splitlines()) if r})
    default, variant = loaded
    rows = []
    for key, d in default.items():
        v = variant.get(key)
        if v is None or not d.get("ratio") or not v.get("ratio"):
            continue
        rows.append(dict(program=d["program"], table=d["table"], scope=d["scope"], size=d["size"],
                         metric=d["metric"], ratio=d["ratio"] / v["ratio"]))
    if not rows:
        print("nvshmem_perftests_vs.py: the two tables have no row in common", file=sys.stderr)
        return 1
    per = OrderedDict()
    for r in rows:
        per.setdefault(r["program"], []).append(r["ratio"])
    ratios = [r["ratio"] for r in rows]
    out = [f"# {title}", "",
           f"gshmem's default build against its `{name}` build, NVIDIA's perftests run in the same rounds "
           "against NVSHMEM. Ratio per row: the default build's ratio to NVSHMEM over the "
           f"`{name}` build's (time default / {name}, rate {name} / default): above 1.00 means the "
           "default build is slower.", "",
           f"**{len(rows)} rows: median {median(ratios):.3f}; {sum(x > 1.0 for x in ratios)} above 1.00, "
           f"{sum(x < 1.0 for x in ratios)} below.**", "",
           "| program | rows | median | min | max |", "|---|---|---|---|---|"]
    for p, v in per.items():
        out.append(f"| {p} | {len(v)} | {median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
    text = "\n".join(out) + "\n"
    with open(os.path.join(out_dir, f"vs_build_{name}.md"), "w") as f:
        f.write(text)
    print(text, end="")
    if not plot(os.path.join(out_dir, f"vs_build_{name}.png"), rows,
                ylabel=f"default build / {name} build\n(above 1: the default build slower)",
                plot_title=f"NVIDIA's perftests: gshmem's default build against its {name} build, same rounds"):
        print("(no plot: matplotlib is missing; pip install matplotlib)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--title", default="NVIDIA's perftests: gshmem against NVSHMEM")
    ap.add_argument("--out-dir")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--variant", choices=["remote"], help="the runs with every peer remote")
    group.add_argument("--build", metavar="NAME", help="gshmem's side from the --build-variant NAME build")
    group.add_argument("--between", metavar="NAME", help="gshmem's default build against its NAME build")
    a = ap.parse_args()
    for opt, value in (("--build", a.build), ("--between", a.between)):
        if value is not None and not re.fullmatch(r"[A-Za-z0-9_]+", value):
            print(f"nvshmem_perftests_vs.py: {opt} takes letters, digits and _ ({value!r})", file=sys.stderr)
            return 2
    if not os.path.isdir(a.build_dir):
        print(f"nvshmem_perftests_vs.py: no such folder: {a.build_dir}", file=sys.stderr)
        return 2
    out_dir = a.out_dir or a.build_dir
    os.makedirs(out_dir, exist_ok=True)
    if a.between:
        return between(a.build_dir, a.between, out_dir,
                       a.title if a.title != ap.get_default("title") else
                       f"NVIDIA's perftests: gshmem as built by default against its {a.between} build")
    rows, runs = compare(a.build_dir, a.variant or "", a.build or "")
    tag = a.variant or a.build
    out_name = OUT_NAME + ("_" + tag if tag else "")
    text = markdown(a.title, rows, runs)
    with open(os.path.join(out_dir, out_name + ".md"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, out_name + ".jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(text, end="")
    if rows and not plot(os.path.join(out_dir, out_name + ".png"), rows):
        print("(no plot: matplotlib is missing; pip install matplotlib)")
    if not rows:
        print("nvshmem_perftests_vs.py: no row was printed by both builds", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
