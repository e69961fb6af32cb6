#!/usr/bin/env python3
"""Builds summary.md from the perftest JSON lines of one benchmark run.

usage: summarize.py RESULTS_DIR [--out FILE] [--title TEXT]

Reads every *.jsonl under RESULTS_DIR. Writes a markdown file with
  1. the targets table: benchmark, value, floor, ratio, target, the NVSHMEM
     figure measured on an H200 NVLink pair, and pass/fail against the target;
     info rows (no target) show related figures beside them, such as the wait
     benchmark under other producer patterns;
  2. every row with a floor, and whether it is within 10% of it;
  3. rows without a floor;
  4. with scripts/bench.sh --vs-nvshmem: the NVSHMEM-API benchmark built
     against gshmem and against NVSHMEM, run in the same invocation, row by
     row with the ratio gshmem / NVSHMEM; the same pairs are written as JSON
     lines to vs_nvshmem.jsonl beside summary.md.
Needs only the Python standard library (no GPU, no matplotlib).
"""
import argparse
import glob
import json
import os
import sys
from collections import OrderedDict

# Floors and targets are per figure; "match" selects the row.
#   (label, match, target_us, nvshmem_us or None)
TARGETS = [
    ("one-way uint64_p + wait_until", dict(name="uint64_p+wait_until", metric="one_way", pes=2), 0.75, 1.306),
    ("one-way signal_op + signal_wait_until", dict(name="signal_op+signal_wait_until", metric="one_way", pes=2), 0.70, 0.85),
    # Wait benchmark rows say what the producer does (gshmem_perf_wait --help):
    # "next" sets the element after the last one set, "block" is a 256-thread
    # block storing every element; NVSHMEM figures only beside the same pattern.
    ("wait_until_any n=1024, thread, producer next (round trip)",
     dict(name="wait_until_any", n=1024, threads=1, pes=2), 15.0, None),
    ("wait_until_any n=1024, block, producer next (round trip)",
     dict(name="wait_until_any", n=1024, threads=1024, pes=2), 4.5, None),
    ("wait_until_all n=8192, thread, producer block (round trip)",
     dict(name="wait_until_all", n=8192, threads=1, pes=2), 100.0, 1501.069),
    ("wait_until_all n=8192, block, producer block (round trip)",
     dict(name="wait_until_all", n=8192, threads=1024, pes=2), 10.0, None),
    ("on-stream responder wait_until + signal_op (round trip)",
     dict(name="uint64_wait_until_on_stream+signal_op_on_stream", metric="round_trip", pes=2), 5.5, 9.482),
    ("on-stream responder signal_wait_until + signal_op (round trip)",
     dict(name="signal_wait_until_on_stream+signal_op_on_stream", metric="round_trip", pes=2), None, 8.584),
    # The wait benchmark under other producer patterns (info): a row of a
    # non-default pattern is named "form[pattern]" (see producer_of); the
    # default patterns keep the plain name. NVSHMEM's _all figures come from a
    # 256-thread block producer, its _any figures from a random one.
    ("wait_until_all n=8192, thread, producer p_block (round trip)",
     dict(name="wait_until_all[p_block]", n=8192, threads=1, pes=2), None, None),
    ("wait_until_all n=8192, thread, producer in_order (round trip)",
     dict(name="wait_until_all[in_order]", n=8192, threads=1, pes=2), None, None),
    ("wait_until_all n=8192, thread, producer reverse (round trip)",
     dict(name="wait_until_all[reverse]", n=8192, threads=1, pes=2), None, None),
    ("wait_until_all n=8192, thread, producer random (round trip)",
     dict(name="wait_until_all[random]", n=8192, threads=1, pes=2), None, None),
    ("wait_until_all n=8192, thread: one pass over a satisfied array (the unit of the rows above)",
     dict(name="wait_until_all:one_pass", n=8192, threads=1, pes=2), None, None),
    ("wait_until_any n=1024, thread, producer random (round trip)",
     dict(name="wait_until_any[random]", n=1024, threads=1, pes=2), None, 141.426),
    # One pass of the one-thread _any over 1024 unsatisfied elements (info):
    # the library's default and wide scans; their floor is the hand-written
    # linear batch of 32 (the other hand-written passes are raw_floor rows).
    ("test_any n=1024, thread: one pass, nothing satisfied",
     dict(name="test_any:one_pass", n=1024, threads=1, pes=2), None, None),
    ("test_any n=1024, thread, wide scan: one pass, nothing satisfied",
     dict(name="test_any_wide:one_pass", n=1024, threads=1, pes=2), None, None),
]
# Targets in passes: a round trip divided by one pass of the same scan (the
# row "wait_until_all:one_pass" of the same n and width, same run).
#   (label, match, most passes)
PASS_TARGETS = [
    ("wait_until_all n=8192, thread, one kernel as an NVSHMEM-style program writes it (passes)",
     dict(name="wait_until_all[one_kernel]", n=8192, threads=1, pes=2), 1.2),
    ("wait_until_all n=8192, thread, producer p_block (passes)",
     dict(name="wait_until_all[p_block]", n=8192, threads=1, pes=2), None),
]
# NVSHMEM 3.x figures (measured on an H200 NVLink pair by the same method) for
# rows that have no target of their own.
ANCHORS = [
    (dict(name="wait_until_any[random]", n=1, threads=1), 2.203),
    (dict(name="wait_until_any[random]", n=32, threads=1), 6.532),
    (dict(name="wait_until_any[random]", n=8192, threads=1), 1134.466),
    (dict(name="test_any[random]", n=1024, threads=1), 139.579),
    (dict(name="wait_until_all", n=1024, threads=1), 183.436),
]
FLOOR_TOLERANCE = 1.10

# The NVSHMEM-API benchmark (perftest/nvshmem_api) tags its rows with the
# implementation it was built against: binary "nvshmem_api@gshmem" or
# "nvshmem_api@nvshmem". Those rows are compared with each other only: they
# never stand for gshmem's own perftests in the tables above.
SAME_SOURCE_PREFIX = "nvshmem_api@"
GSHMEM_BUILD = SAME_SOURCE_PREFIX + "gshmem"
NVSHMEM_BUILD = SAME_SOURCE_PREFIX + "nvshmem"
COMPARISON_FILE = "vs_nvshmem.jsonl"  # written by this script; not a perftest output


def load_rows(results_dir):
    rows = []
    for path in sorted(glob.glob(os.path.join(results_dir, "**", "*.jsonl"), recursive=True)):
        if os.path.basename(path) == COMPARISON_FILE:
            continue
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    print(f"warning: {path}:{lineno}: not JSON ({e})", file=sys.stderr)
    return rows


def matches(row, match):
    return all(row.get(k) == v for k, v in match.items())


def find(rows, match):
    found = [r for r in rows if matches(r, match)]
    return found[-1] if found else None


def producer_of(name):
    """Splits a wait benchmark name into (form, producer pattern or None):
    "wait_until_all[random]" -> ("wait_until_all", "random"); names without a
    pattern are the default pattern's (gshmem_perf_wait --help) and give None."""
    if name.endswith("]") and "[" in name:
        form, producer = name[:-1].split("[", 1)
        return form, producer
    return name, None


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{digits}f}"
    return str(v)


def size_of(row):
    if "n" in row:
        return f"n={row['n']}"
    s = row.get("size", 0)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= div and s % div == 0:
            return f"{s // div} {unit}"
    return f"{s} B"


def width(row):
    t = row.get("threads", 1)
    return {1: "thread", 32: "warp"}.get(t, f"block({t})")


def within_floor(row):
    """Within 10% of the floor, in the row's own direction (bandwidth: higher is better)."""
    ratio = row.get("ratio")
    if ratio is None:
        return False
    if row.get("better") == "higher":
        return ratio >= 1 / FLOOR_TOLERANCE
    return ratio <= FLOOR_TOLERANCE


def nvshmem_anchor(row):
    for match, value in ANCHORS:
        if matches(row, match):
            return value
    return None


def is_same_source_row(row):
    return row.get("binary", "").startswith(SAME_SOURCE_PREFIX)


def row_key(row):
    """What makes two rows the same figure: benchmark, PEs, size or n, issuer, metric."""
    return (row["name"], row.get("pes"), "n" if "n" in row else "size", row.get("n", row.get("size")),
            row.get("threads", 1), row["metric"])


def compare_implementations(rows):
    """Pairs the NVSHMEM-API benchmark's rows built against gshmem with the
    same rows built against NVSHMEM. Returns (pairs, only_gshmem, only_nvshmem):
    pairs are dicts with the row's identity, both values and
    ratio_gshmem_to_nvshmem: gshmem / NVSHMEM for a lower-is-better row (a
    time), NVSHMEM / gshmem for a higher-is-better one (a bandwidth), so that
    below 1 always means gshmem does better. The last row of a key wins."""
    by_impl = {GSHMEM_BUILD: OrderedDict(), NVSHMEM_BUILD: OrderedDict()}
    for r in rows:
        if r.get("binary") in by_impl:
            by_impl[r["binary"]][row_key(r)] = r
    gs, nv = by_impl[GSHMEM_BUILD], by_impl[NVSHMEM_BUILD]
    pairs = []
    for key, g in gs.items():
        n = nv.get(key)
        if n is None:
            continue
        gv, nvv = g.get("value"), n.get("value")
        ratio = None
        if gv is not None and nvv is not None and gv > 0 and nvv > 0:
            ratio = gv / nvv if g.get("better", "lower") == "lower" else nvv / gv
        pair = OrderedDict(name=g["name"], pes=g.get("pes"))
        pair["n" if "n" in g else "size"] = g.get("n", g.get("size"))
        pair.update(threads=g.get("threads", 1), metric=g["metric"], unit=g.get("unit", "us"),
                    better=g.get("better", "lower"), gshmem=gv, nvshmem=nvv,
                    ratio_gshmem_to_nvshmem=None if ratio is None else round(ratio, 6))
        pairs.append(pair)
    only_g = [r for k, r in gs.items() if k not in nv]
    only_n = [r for k, r in nv.items() if k not in gs]
    return pairs, only_g, only_n


def comparison_section(rows):
    """Markdown lines of the same-run comparison (empty without its rows)."""
    pairs, only_g, only_n = compare_implementations(rows)
    if not (pairs or only_g or only_n):
        return []
    out = ["## gshmem vs NVSHMEM, same source, same run", "",
           "The NVSHMEM-API benchmark (perftest/nvshmem_api) built twice, against gshmem::nvshmem and "
           "against NVSHMEM, run one after the other on the same GPUs (scripts/bench.sh --vs-nvshmem). "
           "Ratio = gshmem / NVSHMEM for times (inverted for bandwidths): below 1, gshmem does better.", ""]
    if pairs:
        ratios = [p["ratio_gshmem_to_nvshmem"] for p in pairs if p["ratio_gshmem_to_nvshmem"] is not None]
        faster = sum(1 for r in ratios if r < 1)
        out += [f"{len(pairs)} rows measured by both; gshmem does better in {faster}.", "",
                "| benchmark | PEs | size/n | issuer | metric | gshmem | NVSHMEM | gshmem / NVSHMEM |",
                "|---|---|---|---|---|---|---|---|"]
        for p in pairs:
            out.append(f"| {p['name']} | {p['pes']} | {size_of(p)} | {width(p)} | {p['metric']} | "
                       f"{fmt(p['gshmem'])} {p['unit']} | {fmt(p['nvshmem'])} {p['unit']} | "
                       f"{fmt(p['ratio_gshmem_to_nvshmem'], 2)} |")
    for label, missing in (("only the gshmem build", only_g), ("only the NVSHMEM build", only_n)):
        if missing:
            out += ["", f"Measured by {label} (the other build did not report them): "
                    + ", ".join(f"{r['name']} {size_of(r)} {r['metric']}" for r in missing)]
    out.append("")
    return out


REMOTE_SUFFIX = "[remote]"
# The same rows under mpirun's default binding (bench.sh --remote: one core a rank).
BOUND_SUFFIX = "[remote,bound]"
# The same rows in RMA mode through a UCX with CUDA support (bench.sh --remote
# where one is at hand: GPU memory one-sided over cuda_ipc).
RMA_SUFFIX = "[remote,rma]"
# Columns beside the remote one: (suffix, column title, sentence for the header).
REMOTE_VARIANTS = [
    (BOUND_SUFFIX, "remote, bound", "Bound: the remote run again under mpirun's default binding (one core a rank)."),
    (RMA_SUFFIX, "remote, RMA", "RMA: the remote run again in RMA mode (UCX with CUDA support, GPU memory "
     "one-sided over cuda_ipc, a cudaMalloc heap)."),
]


def is_remote_row(r):
    return r["name"].endswith(REMOTE_SUFFIX) or any(r["name"].endswith(s) for s, _, _ in REMOTE_VARIANTS)


def remote_section(rows, remote, variants=None):
    """Rows measured with every peer remote (bench.sh --remote) beside the
    same benchmark over P2P from the same run, and, where there are any,
    the same remote rows of each variant run (REMOTE_VARIANTS: under
    mpirun's default binding, in RMA mode) in a column of their own.
    `variants`: suffix -> its rows."""
    variants = variants or {}
    present = [(s, title, why) for s, title, why in REMOTE_VARIANTS if variants.get(s)]
    p2p = {row_key(r): r for r in rows if not is_remote_row(r)}
    by_key = {s: {row_key(dict(r, name=r["name"][:-len(s)])): r for r in variants[s]} for s, _, _ in present}
    out = ["", "## Remote peers beside P2P (same run)", "",
           "Remote: GSHMEM_REMOTE_PEERS=all, the same device routines through the proxy thread and the UCX "
           "transport (this node's host shared memory); P2P: the mapped heap over NVLink/PCIe. "
           "Latency in us (lower is better), bandwidth in GB/s (higher is better)."
           + "".join(" " + why for _, _, why in present), "",
           "| benchmark | PEs | size/n | issuer | metric | P2P | remote | remote / P2P |"
           + "".join(f" {title} |" for _, title, _ in present),
           "|---|---|---|---|---|---|---|---|" + "---|" * len(present)]

    def cell(r):
        return f" {fmt(r['value']) + ' ' + r['unit'] if r else '-'} |"

    seen = set()
    for r in remote:
        base = r["name"][:-len(REMOTE_SUFFIX)]
        key = row_key(dict(r, name=base))
        seen.add(key)
        q = p2p.get(key)
        ratio = r["value"] / q["value"] if q and q.get("value") else None
        line = (f"| {base} | {r['pes']} | {size_of(r)} | {width(r)} | {r['metric']} | "
                f"{fmt(q['value']) + ' ' + q['unit'] if q else '-'} | {fmt(r['value'])} {r['unit']} | "
                f"{fmt(ratio, 2) if ratio is not None else '-'} |")
        line += "".join(cell(by_key[s].get(key)) for s, _, _ in present)
        out.append(line)
    # Variant rows without a remote row of their own, once per key.
    for s, _, _ in present:
        for key, v in by_key[s].items():
            if key in seen:
                continue
            seen.add(key)
            base = v["name"][:-len(s)]
            out.append(f"| {base} | {v['pes']} | {size_of(v)} | {width(v)} | {v['metric']} | - | - | - |"
                       + "".join(cell(by_key[t].get(key)) for t, _, _ in present))
    return out


def build(rows, title):
    out = [f"# {title}", ""]
    comparison = comparison_section(rows)
    rows = [r for r in rows if not is_same_source_row(r)]
    gpu_rows = [r for r in rows if not r["name"].startswith("raw_floor:")]
    out += ["## Targets", "",
            "| benchmark | value (us) | floor (us) | ratio | target (us) | NVSHMEM (us) | result |",
            "|---|---|---|---|---|---|---|"]
    failures = 0
    for label, match, target, nv in TARGETS:
        r = find(gpu_rows, match)
        if r is None:
            out.append(f"| {label} | not measured | - | - | {fmt(target, 2)} | {fmt(nv)} | MISSING |")
            if target is not None:
                failures += 1
            continue
        value = r["value"]
        ok_target = target is None or (value is not None and value <= target)
        ratio = r.get("ratio")
        ok_floor = ratio is None or ratio <= FLOOR_TOLERANCE
        verdict = "pass" if ok_target and ok_floor else "FAIL"
        if target is None:
            verdict = "info" if ok_floor else "FAIL (floor)"
        elif ok_target and not ok_floor:
            verdict = "FAIL (floor)"
        if verdict.startswith("FAIL"):
            failures += 1
        out.append(f"| {label} | {fmt(value)} | {fmt(r.get('floor'))} | {fmt(ratio, 2)} | "
                   f"{fmt(target, 2)} | {fmt(nv)} | {verdict} |")
    for label, match, most in PASS_TARGETS:
        r = find(gpu_rows, match)
        unit = find(gpu_rows, dict(name="wait_until_all:one_pass", n=match["n"], threads=match["threads"]))
        target = f"<= {most:.1f} passes" if most is not None else "-"
        if r is None or unit is None or not unit.get("value"):
            out.append(f"| {label} | {'not measured' if r is None else fmt(r['value'])} | - | - | {target} | - | "
                       f"{'MISSING' if most is not None else 'info'} |")
            failures += most is not None
            continue
        passes = r["value"] / unit["value"]
        verdict = "info" if most is None else ("pass" if passes <= most else "FAIL")
        failures += verdict == "FAIL"
        out.append(f"| {label} | {fmt(r['value'])} | - | {passes:.2f} passes of {fmt(unit['value'])} | {target} | - | {verdict} |")
    out += ["", f"Targets: value <= target and ratio to the raw floor <= {FLOOR_TOLERANCE:.2f}. "
            "Rows in passes: the round trip divided by one pass of the same scan over a satisfied "
            "array (wait_until_all:one_pass, same n and width, same run). "
            "Info rows have no target. A wait benchmark name ending in [pattern] was measured "
            "with that producer pattern; plain names use the binary's default (gshmem_perf_wait --help).", ""]

    with_floor = [r for r in gpu_rows if r.get("floor") is not None]
    over = [r for r in with_floor if not within_floor(r)]
    out += ["## Every figure against its raw floor", "",
            f"{len(with_floor)} figures have a floor; {len(with_floor) - len(over)} are within "
            f"{int(round((FLOOR_TOLERANCE - 1) * 100))}% of it.", "",
            "| binary | benchmark | PEs | size/n | issuer | metric | value | min | max | floor | ratio | NVSHMEM | within 10% |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in with_floor:
        ok = within_floor(r)
        out.append(f"| {r.get('binary', '')} | {r['name']} | {r['pes']} | {size_of(r)} | {width(r)} | "
                   f"{r['metric']} | {fmt(r['value'])} {r['unit']} | {fmt(r.get('min'))} | {fmt(r.get('max'))} | "
                   f"{fmt(r['floor'])} | {fmt(r['ratio'], 2)} | {fmt(nvshmem_anchor(r))} | "
                   f"{'yes' if ok else 'NO'} |")
    remote = [r for r in rows if r["name"].endswith(REMOTE_SUFFIX)]
    variants = {s: [r for r in rows if r["name"].endswith(s)] for s, _, _ in REMOTE_VARIANTS}
    if remote or any(variants.values()):
        out += remote_section(rows, remote, variants)
    without = [r for r in rows if r.get("floor") is None and not is_remote_row(r)]
    if without:
        out += ["", "## Figures without a floor", "",
                "| binary | benchmark | PEs | size/n | issuer | metric | value | min | max |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r in without:
            out.append(f"| {r.get('binary', '')} | {r['name']} | {r['pes']} | {size_of(r)} | {width(r)} | "
                       f"{r['metric']} | {fmt(r['value'])} {r['unit']} | {fmt(r.get('min'))} | {fmt(r.get('max'))} |")
    out.append("")
    out += comparison
    return "\n".join(out), failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results_dir")
    ap.add_argument("--out", help="output file (default RESULTS_DIR/summary.md)")
    ap.add_argument("--title", default="gshmem perftest summary")
    args = ap.parse_args()
    rows = load_rows(args.results_dir)
    if not rows:
        print(f"summarize: no JSON rows under {args.results_dir}", file=sys.stderr)
        return 1
    text, failures = build(rows, args.title)
    out = args.out or os.path.join(args.results_dir, "summary.md")
    with open(out, "w") as f:
        f.write(text)
    print(f"summarize: {len(rows)} rows -> {out} ({failures} target(s) not met)")
    pairs, _, _ = compare_implementations(rows)
    if pairs:
        path = os.path.join(os.path.dirname(os.path.abspath(out)), COMPARISON_FILE)
        with open(path, "w") as f:
            for p in pairs:
                f.write(json.dumps(p) + "\n")
        print(f"summarize: {len(pairs)} gshmem / NVSHMEM pairs -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
