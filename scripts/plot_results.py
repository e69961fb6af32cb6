#!/usr/bin/env python3
"""Plots perftest JSON lines with matplotlib (no GPU needed).

usage: plot_results.py RESULTS_DIR [--out DIR]

Writes at most seven PNGs into DIR (default RESULTS_DIR):
  wait_any.png, wait_all.png, wait_some.png  round trip vs n, per form, issuer and producer
                                              pattern, floors dashed
  put_signal.png                              one-way latency vs message size, per issuer
  bandwidth.png                               put / put_signal bandwidth vs size
  ratio_to_floor.png                          every figure's ratio to its raw floor
  vs_nvshmem.png                              gshmem / NVSHMEM per row of the NVSHMEM-API
                                              benchmark (only with bench.sh --vs-nvshmem rows)
Exits 77 when matplotlib is missing (so a test can report "skipped").
"""
import argparse
import os
import sys
from collections import defaultdict

# One reader of the JSON lines and one pairing of the two builds, beside this script.
from summarize import compare_implementations, is_same_source_row, load_rows, producer_of, size_of

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("plot_results: matplotlib is not installed (pip install matplotlib); no plots made",
          file=sys.stderr)
    sys.exit(77)

WIDTH_NAMES = {1: "thread", 32: "warp"}


def width_name(t):
    return WIDTH_NAMES.get(t, f"block{t}")


def family_of(name):
    """The wait family of a wait benchmark row: "wait_until_all[random]" -> "all"."""
    form, _ = producer_of(name)
    return form.replace("wait_until_", "").replace("test_", "").split("_")[0]


def series(rows, key):
    """Groups rows into {label: sorted [(x, value, floor)]} by `key(row)`."""
    out = defaultdict(dict)
    for r in rows:
        label = key(r)
        if label is None or r.get("value") is None:
            continue
        x = r.get("n", r.get("size"))
        out[label][x] = (x, r["value"], r.get("floor"))  # the last run of a point wins
    return {k: sorted(v.values()) for k, v in sorted(out.items())}


def line_plot(path, title, xlabel, ylabel, groups, logy=True):
    if not groups:
        return False
    fig, ax = plt.subplots(figsize=(9, 5.5))
    # Twenty distinct colours where ten would repeat (a family with its
    # producer patterns has more than ten series).
    colors = plt.get_cmap("tab10" if len(groups) <= 10 else "tab20")
    for i, (label, pts) in enumerate(groups.items()):
        color = colors(i % colors.N)
        xs = [p[0] for p in pts]
        ax.plot(xs, [p[1] for p in pts], "o-", color=color, label=label, markersize=3)
        fl = [(p[0], p[2]) for p in pts if p[2] is not None]
        if fl:
            ax.plot([p[0] for p in fl], [p[1] for p in fl], "--", color=color, alpha=0.5,
                    linewidth=1)
    ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title + "\n(dashed: raw floor of the same exchange)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2 if len(groups) <= 16 else 3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def ratio_plot(path, rows):
    pts = [r for r in rows if r.get("ratio") is not None and not r["name"].startswith("raw_floor:")]
    if not pts:
        return False
    by_binary = defaultdict(list)
    for r in pts:
        by_binary[r.get("binary", "?").replace("gshmem_perf_", "")].append(r["ratio"])
    fig, ax = plt.subplots(figsize=(9, 5))
    labels = sorted(by_binary)
    for i, b in enumerate(labels):
        ys = by_binary[b]
        xs = [i + (j / max(len(ys), 1) - 0.5) * 0.7 for j in range(len(ys))]
        ax.scatter(xs, ys, s=8, color=f"C{i % 10}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(1.10, color="red", linestyle="--", linewidth=0.8, label="floor + 10%")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    ax.set_ylabel("gshmem / raw floor")
    ax.set_yscale("log")
    ax.set_title("Ratio of every gshmem figure to its raw floor (lower is better)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def vs_nvshmem_plot(path, rows):
    """One bar per row measured by both builds of the NVSHMEM-API benchmark:
    gshmem / NVSHMEM on a log scale, 1 marked (left of it, gshmem does better)."""
    pairs = [p for p in compare_implementations(rows)[0] if p["ratio_gshmem_to_nvshmem"] is not None]
    if not pairs:
        return False
    labels = [f"{p['name']} {size_of(p)} {p['metric']}" for p in pairs]
    ratios = [p["ratio_gshmem_to_nvshmem"] for p in pairs]
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.32 * len(pairs)))
    ys = list(range(len(pairs)))[::-1]
    colors = ["C2" if r < 1 else "C3" for r in ratios]
    ax.barh(ys, ratios, color=colors, height=0.6)
    for y, r in zip(ys, ratios):
        ax.text(r, y, f" {r:.2f}", va="center", fontsize=7)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("gshmem / NVSHMEM (below 1: gshmem does better)")
    ax.set_title("NVSHMEM-API benchmark built against gshmem and against NVSHMEM\n"
                 "(same source, same GPUs, same run)", fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")  # long row labels stay whole
    plt.close(fig)
    return True


def make_plots(rows, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    made = []
    # gshmem's own perftests; the NVSHMEM-API benchmark's rows have their own plot.
    api = [r for r in rows if not r["name"].startswith("raw_floor:") and not is_same_source_row(r)]
    wait_rows = [r for r in api if r.get("binary") == "gshmem_perf_wait" and r.get("pes") == 2]
    for fam in ("any", "all", "some"):
        # One series per form, issuer and producer pattern ("wait_until_all[random] thread").
        fam_rows = [r for r in wait_rows if family_of(r["name"]) == fam]
        groups = series(fam_rows, lambda r: f"{r['name']} {width_name(r['threads'])}")
        path = os.path.join(out_dir, f"wait_{fam}.png")
        if line_plot(path, f"_{fam} family: round trip vs n (2 PEs)", "n (ivars)",
                     "round trip (us)", groups):
            made.append(path)
    ps = [r for r in api if r["name"] == "putmem_signal" and r["metric"] == "one_way"]
    groups = series(ps, lambda r: f"putmem_signal {width_name(r['threads'])}")
    path = os.path.join(out_dir, "put_signal.png")
    if line_plot(path, "putmem_signal one-way latency vs size (2 PEs)", "bytes", "one-way (us)", groups):
        made.append(path)
    bw = [r for r in api if r["metric"] == "bandwidth"]
    groups = series(bw, lambda r: f"{r['name']} {width_name(r['threads'])}")
    path = os.path.join(out_dir, "bandwidth.png")
    if line_plot(path, "Bandwidth vs size (2 PEs)", "bytes", "GB/s", groups, logy=False):
        made.append(path)
    path = os.path.join(out_dir, "ratio_to_floor.png")
    if ratio_plot(path, api):
        made.append(path)
    path = os.path.join(out_dir, "vs_nvshmem.png")
    if vs_nvshmem_plot(path, rows):
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results_dir")
    ap.add_argument("--out", help="folder for the PNGs (default RESULTS_DIR)")
    args = ap.parse_args()
    rows = load_rows(args.results_dir)
    if not rows:
        print(f"plot_results: no JSON rows under {args.results_dir}", file=sys.stderr)
        return 1
    made = make_plots(rows, args.out or args.results_dir)
    for p in made:
        print(f"plot_results: wrote {p}")
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
