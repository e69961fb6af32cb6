#!/usr/bin/env bash
# Two source trees of gshmem benchmarked on the same GPUs in one run, to
# tell a change's effect from the spread between machines:
#
#   scripts/bench_ab.sh [--rounds N] [--full] [--out DIR] [--work DIR] [--label-a A] [--label-b B] TREE_A TREE_B
#
# Builds each tree's perftests with that tree's own scripts/bench.sh
# (--build-only, Release, into WORK/build-a and WORK/build-b, the two builds
# side by side), then runs `bench.sh --quick` (or the full suite, --full) of
# each tree N times (default 3), alternating which goes first, and
# scripts/bench_ab.py writes OUT/ab.md (and ab.jsonl, and ab.png with matplotlib): per row the median of
# each side, B / A (time; A / B for rates, so above 1 means B is slower), and
# whether the difference is beyond the spread of the rounds (B's best worse
# than A's worst, or the reverse). The floors, which neither tree's change
# touches, give a row of their own: how far the two sides' machines agree.
# TREE_A / TREE_B: source folders (e.g. `git worktree add build-ab-before
# <commit>` next to the current tree, which then travels with it).
#
# OUT (default: $OUT, else ./bench-ab) receives a handful of files: ab.md,
# ab.jsonl, the build and round logs, and rounds.tar.gz (every round's
# results). The builds and the rounds' result folders stay in WORK (default:
# a new folder under $TMPDIR or /tmp, removed at the end unless --work names
# one), and the rounds run with OUT unset, so bench.sh copies nothing of its
# own into OUT: a folder that is sent back somewhere stays small.
# Exit status: 0 when the table was written.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3 mode=(--quick) out="${OUT:-$PWD/bench-ab}" work="" label_a=A label_b=B
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --full) mode=() ;;
    --out) out=$2; shift ;;
    --work) work=$2; shift ;;
    --label-a) label_a=$2; shift ;;
    --label-b) label_b=$2; shift ;;
    -*) echo "bench_ab.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
if [[ $# -ne 2 || ! -f "$1/scripts/bench.sh" || ! -f "$2/scripts/bench.sh" ]]; then
  echo "usage: $0 [--rounds N] [--full] [--out DIR] [--work DIR] [--label-a A] [--label-b B] TREE_A TREE_B (gshmem source trees)" >&2
  exit 2
fi
tree_a=$(cd "$1" && pwd) tree_b=$(cd "$2" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ -z $work ]]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/gshmem-bench-ab.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
say() { printf '[bench_ab %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

say "building both trees' perftests side by side"
env -u OUT bash "$tree_a/scripts/bench.sh" --build-only --no-deps --build-dir "$work/build-a" > "$out/build-a.log" 2>&1 &
pid_a=$!
env -u OUT bash "$tree_b/scripts/bench.sh" --build-only --no-deps --build-dir "$work/build-b" > "$out/build-b.log" 2>&1 &
pid_b=$!
wait "$pid_a"; rc_a=$?
wait "$pid_b"; rc_b=$?
if [[ $rc_a -ne 0 || $rc_b -ne 0 ]]; then
  tail -n 20 "$out/build-a.log" "$out/build-b.log"
  say "a build failed (A: $rc_a, B: $rc_b)"
  exit 1
fi

for ((r = 1; r <= rounds; ++r)); do
  order=(a b)
  (( r % 2 == 0 )) && order=(b a)
  for side in "${order[@]}"; do
    tree=$tree_a
    [[ $side == b ]] && tree=$tree_b
    say "round $r of $rounds: $side"
    env -u OUT bash "$tree/scripts/bench.sh" "${mode[@]}" --no-deps --no-build --build-dir "$work/build-$side" \
      --results-dir "$work/$side/round$r" > "$out/$side-round$r.log" 2>&1 ||
      say "  bench.sh of $side, round $r: exit status $? (see $side-round$r.log)"
  done
done

tar -C "$work" -czf "$out/rounds.tar.gz" a b 2>/dev/null || say "no rounds to pack"
python3 "$root/scripts/bench_ab.py" "$work/a" "$work/b" --label-a "$label_a" --label-b "$label_b" --out "$out/ab.md" --plot
