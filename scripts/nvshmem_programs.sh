#!/usr/bin/env bash
# Builds NVSHMEM's own programs against an installed gshmem and, where there
# are GPUs, runs them.
#
#   scripts/nvshmem_programs.sh NVSHMEM_SRC [--prefix DIR] [--np LIST] [--build-only | --run-only]
#       [--build-dir DIR] [--timeout S] [--jobs N] [--arch SM] [--nvml-include DIR]
#       [--no-mpi-support] [--all-args] [--only REGEX] [--names]
#       [--vs-nvshmem [--nvshmem-home DIR] [--nvshmem-build DIR] [--remote]]
#       [--build-variant NAME=FLAGS | --env-variant NAME=VAR=VALUE] [--bind-to-none]
#   scripts/nvshmem_programs.sh NVSHMEM_SRC --nvshmem-side-only [--build-dir DIR] [--only REGEX]
#       [--nvshmem-home DIR] [--jobs N] [--arch SM] [--nvml-include DIR]
#
# NVSHMEM_SRC is a checkout of NVSHMEM's source tree; it is only read (the
# script checks afterwards that nothing in it changed). The programs are
# NVSHMEM's perftest/{device,host}/pt-to-pt/* and perftest/{device,host}/coll/*
# (linked with the perftests' shared helper, perftest/common/utils.cu) and
# examples/*.
# They are built outside this tree by a generated CMake project that calls
# find_package(gshmem) and links gshmem::nvshmem, so their <nvshmem.h> is
# gshmem's compatibility header and the installed package is what is tested.
# No -rdc: gshmem's device routines are inline. Examples that include
# <mpi.h> link MPI; examples that include <shmem.h> (OpenSHMEM programs, such
# as shmem-based-init) take the OpenSHMEM library's flags from its compiler
# wrapper (oshcc; Open MPI's OSHMEM) and run under mpirun like the others.
#
#   --prefix DIR       the gshmem install prefix to test (default: build this
#                      tree and install it into BUILD_DIR/gshmem-prefix)
#   --np LIST          PE counts for the examples, comma-separated (default 2,
#                      and 4 where the machine has 4 GPUs); the pt-to-pt
#                      perftests always run on 2 PEs (they need exactly 2)
#   --coll-np LIST     PE counts for the collective perftests (*/coll/*),
#                      comma-separated (default as --np: 2, and 4 where the
#                      machine has 4 GPUs); counts above the
#                      machine's GPUs are skipped, saying so. Logs are named
#                      <program>.np<N>..., and the side-by-side table has a
#                      row per PE count
#   --build-only       build and report; run nothing
#   --run-only         run what an earlier --build-only call built in the same
#                      --build-dir (same NVSHMEM_SRC and prefix), and report;
#                      with --vs-nvshmem it builds NVSHMEM's side first where
#                      that build has none (gshmem's side built elsewhere)
#   --build-dir DIR    where everything goes (default ${TMPDIR:-/tmp}/gshmem-nvshmem-programs)
#   --timeout S        seconds per program run (default 120)
#   --jobs N           parallel compile jobs (default: nproc)
#   --arch SM          CUDA architecture (default 90)
#   --nvml-include DIR where nvml.h is (the perftest helper includes it; found
#                      in the CUDA toolkit or a pip nvidia-nvml-dev otherwise)
#   --no-mpi-support   build without NVSHMEMTEST_MPI_SUPPORT (NVSHMEM's build
#                      defines it where MPI is found; the programs then still
#                      start with nvshmem_init unless NVSHMEMTEST_USE_MPI_LAUNCHER=1)
#   --all-args         run a perftest once per line of its .args file (default:
#                      the first line only)
#   --only REGEX       only the programs whose name matches REGEX (with
#                      --run-only: run only those of the earlier build)
#   --names            also count NVSHMEM's public names that the installed
#                      compatibility headers provide, refuse or miss
#                      (scripts/nvshmem_names.py; one nvcc call, seconds):
#                      BUILD_DIR/names.txt, and per name names/names.tsv
#   --vs-nvshmem       also build every perftest against NVSHMEM itself (nvcc
#                      -rdc, NVSHMEM's host and device libraries; the helper
#                      without MPI support: the runs bootstrap with
#                      NVSHMEM_BOOTSTRAP=MPI) and run the two builds one after
#                      the other, program by program, on the same GPUs with the
#                      same arguments (NVSHMEM_MACHINE_READABLE_OUTPUT=1 for
#                      both); scripts/nvshmem_perftests_vs.py then writes
#                      vs_nvshmem_perftests.md (program | table | scope | size |
#                      NVSHMEM | gshmem | ratio), .jsonl and .png. Ratio: time
#                      gshmem / NVSHMEM, bandwidth NVSHMEM / gshmem: at most 1.0
#                      where gshmem is at or ahead. Without NVSHMEM the
#                      comparison is skipped, saying so. PEs sharing one GPU
#                      (GSHMEM_TEST_SHARE_GPUS=1) are compared only under MPS
#                      with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE set (at most
#                      100 / PEs: NVSHMEM needs it), both libraries alike, and
#                      the titles say so: not an NVLink figure.
#   --repeat N         with --vs-nvshmem: run each perftest pair N times
#                      (default 1, or $VS_REPEAT), alternating which build goes first; the
#                      table then compares medians and tells a difference
#                      from the run-to-run spread (a row is behind beyond
#                      the spread when gshmem's best run is slower than
#                      NVSHMEM's worst); logs of rounds 2.. end in .r<round>.run.log
#   --remote           with --vs-nvshmem: run the perftests (only; no
#                      examples) with every peer remote instead, both
#                      libraries through UCX: gshmem with
#                      GSHMEM_REMOTE_PEERS=all (UCX_TLS from $REMOTE_UCX_TLS,
#                      default self,posix,cma,tcp), NVSHMEM with
#                      NVSHMEM_REMOTE_TRANSPORT=ucx and NVSHMEM_DISABLE_P2P=1
#                      (its UCX transport module must load: the run logs say
#                      why where it does not). Logs go to logs-remote/ and
#                      logs-nvshmem-remote/, the table to
#                      vs_nvshmem_perftests_remote.{md,jsonl,png}
#   --build-variant NAME=FLAGS
#                      also build the perftests a second time against gshmem
#                      with these compiler flags (e.g.
#                      p2p_only=-DGSHMEM_DEVICE_REMOTE=0) into build-NAME/,
#                      and run that build in the same rounds, right after
#                      gshmem's default one (logs-build-NAME/, named as in
#                      logs/); with --vs-nvshmem its comparison with NVSHMEM
#                      goes to vs_nvshmem_perftests_NAME.{md,jsonl,png}, and
#                      the default build against this one, row by row, to
#                      vs_build_NAME.{md,png}. Give it to the --run-only call too
#   --env-variant NAME=VAR=VALUE
#                      as --build-variant, without a second build: gshmem's
#                      build runs a second time with VAR=VALUE in the
#                      environment (e.g. two_sync=GSHMEM_COLLECTIVE_LL=0); logs in
#                      logs-build-NAME/, tables as above
#   --nvshmem-home DIR the NVSHMEM to compare with (include/nvshmem.h, lib/);
#                      default $NVSHMEM_HOME, else the nvidia-nvshmem-cu13/-cu12
#                      wheel of python3
#   --nvshmem-side-only
#                      build only NVSHMEM's side of --vs-nvshmem (no gshmem, no
#                      GPU needed) into BUILD_DIR/build-nvshmem, and stop. Its
#                      -rdc builds are slow (coll/reduction_latency alone takes
#                      more than 5 minutes on 32 cores), so they can be made on
#                      any machine with nvcc and the same NVSHMEM version, and
#                      carried to the GPU machine
#   --nvshmem-build DIR
#                      with --vs-nvshmem: take NVSHMEM's side from DIR (a
#                      build-nvshmem folder that --nvshmem-side-only made)
#                      instead of building it. The NVSHMEM found here must be
#                      the version DIR was built against (checked); its lib/
#                      goes on the programs' LD_LIBRARY_PATH
#   --bind-to-none     launch with mpirun --bind-to none. The default is a plain
#                      mpirun -np N, as users launch (Open MPI then binds each
#                      rank to one core for N <= 2); the tables' titles say which
#
# Writes into BUILD_DIR: logs/<program>.{compile,link}.log and one
# <program>.np<N>[.a<k>].run.log per run, programs.tsv, and report.md (the
# table "program | built | ran | result", the programs left out and why, and
# the NVSHMEM names they miss grouped by feature, read from the compiler's
# and linker's errors by scripts/nvshmem_programs_report.py). The report is
# printed at the end. With --vs-nvshmem also build-nvshmem/ (NVSHMEM's
# builds), logs-nvshmem/ (their build and run logs, named as in logs/) and
# vs_nvshmem_perftests.{md,jsonl,png}. Exit status: 0 when the report was made (whatever the
# programs did), non-zero when the script itself could not do its job.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LC_ALL=C  # compilers' messages in ASCII, as the report reads them
. "$ROOT/scripts/nvshmem_home.sh"
say() { printf '[nvshmem-programs %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { say "$*" >&2; exit 2; }

NV_SRC=""
PREFIX=""
NP_LIST=""
COLL_NP_LIST=""
BUILD_ONLY=0
RUN_ONLY=0
BUILD_DIR="${TMPDIR:-/tmp}/gshmem-nvshmem-programs"
TIMEOUT=120
JOBS=$(nproc 2>/dev/null || echo 2)
ARCH=90
NVML_INCLUDE=""
MPI_SUPPORT=1
ALL_ARGS=0
ONLY=""
NAMES=0
VS_NVSHMEM=0
REPEAT=${VS_REPEAT:-1}
REMOTE=0
VARIANT=""        # --build-variant NAME
VARIANT_FLAGS=""  # and its FLAGS
VARIANT_ENV=""    # --env-variant NAME=VAR=VALUE: its VAR=VALUE
NVSHMEM_HOME_ARG="${NVSHMEM_HOME:-}"
NV_SIDE_ONLY=0    # --nvshmem-side-only
NV_PREBUILT=""    # --nvshmem-build DIR
BIND_NONE=0       # --bind-to-none
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="$2"; shift ;;
    --np) NP_LIST="$2"; shift ;;
    --coll-np) COLL_NP_LIST="$2"; shift ;;
    --build-only) BUILD_ONLY=1 ;;
    --run-only) RUN_ONLY=1 ;;
    --build-dir) BUILD_DIR="$2"; shift ;;
    --timeout) TIMEOUT="$2"; shift ;;
    --jobs) JOBS="$2"; shift ;;
    --arch) ARCH="$2"; shift ;;
    --nvml-include) NVML_INCLUDE="$2"; shift ;;
    --no-mpi-support) MPI_SUPPORT=0 ;;
    --all-args) ALL_ARGS=1 ;;
    --only) ONLY="$2"; shift ;;
    --names) NAMES=1 ;;
    --vs-nvshmem) VS_NVSHMEM=1 ;;
    --nvshmem-home) NVSHMEM_HOME_ARG="$2"; shift ;;
    --nvshmem-side-only) NV_SIDE_ONLY=1; VS_NVSHMEM=1 ;;
    --nvshmem-build) NV_PREBUILT="$2"; shift ;;
    --bind-to-none) BIND_NONE=1 ;;
    --repeat) REPEAT="$2"; shift ;;
    --remote) REMOTE=1 ;;
    --build-variant) VARIANT="${2%%=*}"; VARIANT_FLAGS="${2#*=}"; shift ;;
    --env-variant) VARIANT="${2%%=*}"; VARIANT_ENV="${2#*=}"; shift ;;
    -h|--help) sed -n '2,$p' "$0" | sed '/^[^#]/,$d' | sed 's/^# \{0,1\}//'; exit 0 ;;  # the header
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$NV_SRC" ] || die "one NVSHMEM source tree expected, got '$NV_SRC' and '$1'"
       NV_SRC="$1" ;;
  esac
  shift
done

# ---------------------------------------------------------------- checks
[ -n "$NV_SRC" ] || die "usage: $0 NVSHMEM_SRC [options] (try --help)"
NV_SRC="$(cd "$NV_SRC" 2>/dev/null && pwd)" || die "no such folder: $NV_SRC"
for f in perftest/common/utils.cu perftest/common/utils.h examples; do
  [ -e "$NV_SRC/$f" ] || die "$NV_SRC is not an NVSHMEM source tree (no $f)"
done
case "$TIMEOUT$JOBS$ARCH$REPEAT" in *[!0-9]*) die "--timeout, --jobs, --arch and --repeat take numbers" ;; esac
[ "$REPEAT" -ge 1 ] || die "--repeat takes a count of at least 1"
if [ -n "$VARIANT" ]; then
  [[ "$VARIANT" =~ ^[A-Za-z0-9_]+$ ]] || die "--build-variant/--env-variant: NAME takes letters, digits and _ ('$VARIANT')"
  [ -n "$VARIANT_FLAGS$VARIANT_ENV" ] || die "--build-variant/--env-variant $VARIANT: nothing after '='"
  [ -z "$VARIANT_FLAGS" ] || [ -z "$VARIANT_ENV" ] || die "--build-variant and --env-variant exclude each other"
  [ -z "$VARIANT_ENV" ] || [[ "$VARIANT_ENV" =~ ^[A-Za-z_][A-Za-z0-9_]*=.*$ ]] \
    || die "--env-variant $VARIANT: expected VAR=VALUE after the name ('$VARIANT_ENV')"
fi
if ! command -v nvcc > /dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
command -v nvcc > /dev/null || die "nvcc not found (put the CUDA toolkit's bin on PATH)"
command -v cmake > /dev/null || die "cmake not found"
command -v python3 > /dev/null || die "python3 not found (the report needs it)"
mkdir -p "$BUILD_DIR" || die "cannot create $BUILD_DIR"
BUILD_DIR="$(cd "$BUILD_DIR" && pwd)"
case "$BUILD_DIR/" in
  "$ROOT"/*) die "the build folder must lie outside the gshmem tree ($BUILD_DIR)" ;;
  "$NV_SRC"/*) die "the build folder must lie outside the NVSHMEM tree ($BUILD_DIR)" ;;
esac
[ "$BUILD_ONLY$RUN_ONLY" = 11 ] && die "--build-only and --run-only exclude each other"
[ "$NV_SIDE_ONLY" = 0 ] || [ "$RUN_ONLY" = 0 ] || die "--nvshmem-side-only and --run-only exclude each other"
if [ -n "$NV_PREBUILT" ]; then
  [ "$VS_NVSHMEM" = 1 ] && [ "$NV_SIDE_ONLY" = 0 ] || die "--nvshmem-build goes with --vs-nvshmem (and not with --nvshmem-side-only)"
  NV_PREBUILT="$(cd "$NV_PREBUILT" 2>/dev/null && pwd)" || die "--nvshmem-build: no such folder: $NV_PREBUILT"
  [ -d "$NV_PREBUILT/bin" ] && [ -s "$NV_PREBUILT/nvshmem-version" ] \
    || die "--nvshmem-build $NV_PREBUILT: not a folder that --nvshmem-side-only made (no bin/ or nvshmem-version)"
fi
LOGS="$BUILD_DIR/logs"
VAR_BLD="$BUILD_DIR/build-$VARIANT"       # --build-variant's build
[ -n "$VARIANT_ENV" ] && VAR_BLD="$BUILD_DIR/build"  # --env-variant: the default build again
VAR_LOGS="$BUILD_DIR/logs-build-$VARIANT"  # and its logs
if [ "$RUN_ONLY" = 1 ]; then
  [ -s "$BUILD_DIR/programs.tsv" ] && [ -d "$BUILD_DIR/build/bin" ] \
    || die "--run-only: $BUILD_DIR has no earlier build (run with --build-only first)"
  [ -z "$VARIANT" ] || [ -d "$VAR_BLD/bin" ] \
    || die "--run-only --build-variant $VARIANT: $BUILD_DIR has no build of that variant"
  rm -f "$LOGS"/*.run.log "$LOGS"/*.run.log.rc
  [ -z "$VARIANT" ] || rm -f "$VAR_LOGS"/*.run.log "$VAR_LOGS"/*.run.log.rc
else
  rm -rf "$LOGS"
fi
mkdir -p "$LOGS"
# Everything in the NVSHMEM tree is older than this stamp; checked at the end.
STAMP_FILE="$BUILD_DIR/.start-stamp"
touch "$STAMP_FILE"

# nvml.h: NVSHMEM's perftest helper includes it (it loads libnvml at run time).
if [ -z "$NVML_INCLUDE" ]; then
  NVCC_DIR="$(dirname "$(command -v nvcc)")"
  for d in "$NVCC_DIR/../include" "$NVCC_DIR"/../targets/*/include /usr/local/cuda/include /usr/include; do
    [ -f "$d/nvml.h" ] && { NVML_INCLUDE="$(cd "$d" && pwd)"; break; }
  done
fi
if [ -z "$NVML_INCLUDE" ]; then
  NVML_INCLUDE="$(python3 - <<'EOF' 2>/dev/null
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for r in roots:
    for h in sorted(glob.glob(os.path.join(r, "nvidia", "*", "include", "nvml.h"))) + \
             sorted(glob.glob(os.path.join(r, "nvidia", "nvml", "include", "nvml.h"))):
        print(os.path.dirname(h)); sys.exit(0)
EOF
)"
fi
if [ -n "$NVML_INCLUDE" ] && [ ! -f "$NVML_INCLUDE/nvml.h" ]; then
  die "--nvml-include $NVML_INCLUDE has no nvml.h"
fi
[ -n "$NVML_INCLUDE" ] && NVML_INCLUDE="$(cd "$NVML_INCLUDE" && pwd)"  # the generated project runs elsewhere
[ "$RUN_ONLY" = 1 ] || [ -n "$NVML_INCLUDE" ] || say "nvml.h not found: the perftests will not compile (install the CUDA toolkit's NVML headers, e.g. pip install nvidia-nvml-dev, and pass --nvml-include DIR)"

# ---------------------------------------------------------------- gshmem
if [ "$NV_SIDE_ONLY" = 1 ]; then
  :  # NVSHMEM's side alone: no gshmem
elif [ "$RUN_ONLY" = 1 ] && [ -z "$PREFIX" ]; then
  PREFIX="$BUILD_DIR/gshmem-prefix"
elif [ -z "$PREFIX" ]; then
  PREFIX="$BUILD_DIR/gshmem-prefix"
  say "building gshmem from $ROOT and installing it into $PREFIX"
  cmake -S "$ROOT" -B "$BUILD_DIR/gshmem-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGSHMEM_BUILD_TESTS=OFF -DGSHMEM_BUILD_PERFTEST=OFF -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
    > "$LOGS/gshmem.configure.log" 2>&1 || { tail -20 "$LOGS/gshmem.configure.log"; die "configuring gshmem failed"; }
  cmake --build "$BUILD_DIR/gshmem-build" -j"$JOBS" > "$LOGS/gshmem.build.log" 2>&1 \
    || { tail -20 "$LOGS/gshmem.build.log"; die "building gshmem failed"; }
  cmake --install "$BUILD_DIR/gshmem-build" --prefix "$PREFIX" > "$LOGS/gshmem.install.log" 2>&1 \
    || die "installing gshmem failed (see $LOGS/gshmem.install.log)"
fi
if [ "$NV_SIDE_ONLY" = 0 ]; then
PREFIX="$(cd "$PREFIX" 2>/dev/null && pwd)" || die "no such prefix: $PREFIX"
ls "$PREFIX"/lib*/cmake/gshmem/gshmemConfig.cmake > /dev/null 2>&1 \
  || die "$PREFIX has no gshmem CMake package (lib*/cmake/gshmem/gshmemConfig.cmake)"
[ -f "$PREFIX/include/gshmem/compat/nvshmem.h" ] \
  || die "$PREFIX has no NVSHMEM compatibility headers (include/gshmem/compat)"
fi

# ---------------------------------------------------------------- NVSHMEM's build
# --vs-nvshmem: the same perftests against NVSHMEM itself, with plain nvcc
# calls (-rdc, as NVSHMEM requires), each its own log; a failure is reported
# and that program's comparison left out. It runs beside gshmem's build (it
# needs only the program list): NVSHMEM's -rdc compile of coll/reduction_latency
# alone takes minutes. A --run-only call builds it where the earlier build did
# not (a gshmem build made elsewhere, carried here).
NV_BLD="$BUILD_DIR/build-nvshmem"
NV_LOGS="$BUILD_DIR/logs-nvshmem"
build_nvshmem_side() {
  NV_HOME=$(nvshmem_find_home "$NVSHMEM_HOME_ARG")
  rm -rf "$NV_BLD" "$NV_LOGS"
  if [ -z "$NV_HOME" ]; then
    say "NVSHMEM not found (${NVSHMEM_HOME_ARG:-no --nvshmem-home, no \$NVSHMEM_HOME, no nvidia-nvshmem wheel for python3}): no comparison with NVSHMEM (pip install nvidia-nvshmem-cu13, or cu12)"
    return 0
  fi
  mkdir -p "$NV_BLD/bin" "$NV_LOGS"
  if [ -n "$NV_PREBUILT" ]; then
    # Built elsewhere (--nvshmem-side-only): the same NVSHMEM version, or the
    # device library in the programs and the host library here disagree.
    local want have
    want=$(cat "$NV_PREBUILT/nvshmem-version") have=$(nvshmem_version "$NV_HOME")
    if [ "$want" != "$have" ]; then
      say "--nvshmem-build: built against NVSHMEM $want, this machine has $have ($NV_HOME): no comparison"
      rm -rf "$NV_BLD"
      return 0
    fi
    cp -p "$NV_PREBUILT"/bin/* "$NV_BLD/bin/"
    cp -p "$NV_PREBUILT/nvshmem-version" "$NV_BLD/"
    { nvshmem_run_environment
      # Their rpath names the machine they were linked on.
      echo "LD_LIBRARY_PATH=$NV_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; } > "$NV_BLD/run-environment"
    echo "$NV_HOME" > "$NV_BLD/nvshmem-home"
    say "NVSHMEM's side: $(ls "$NV_BLD/bin" | wc -l) perftests built elsewhere against NVSHMEM $want ($NV_PREBUILT)"
    return 0
  fi
  nvshmem_version "$NV_HOME" > "$NV_BLD/nvshmem-version"
  nvshmem_link_flags "$NV_HOME"
  NV_FLAGS=(-std=c++17 -O3 -arch=sm_"$ARCH" -rdc=true -I"$NV_HOME/include" -I"$NV_SRC/perftest/common")
  [ -n "$NVML_INCLUDE" ] && NV_FLAGS+=(-I"$NVML_INCLUDE")
  say "building the perftests against NVSHMEM ($NV_HOME, sm_$ARCH, -rdc; logs in $NV_LOGS)"
  if ! nvcc "${NV_FLAGS[@]}" -c "$NV_SRC/perftest/common/utils.cu" -o "$NV_BLD/perftest_helper.o" \
       > "$NV_LOGS/perftest_helper.log" 2>&1; then
    tail -5 "$NV_LOGS/perftest_helper.log"
    say "the perftest helper did not compile against NVSHMEM (see $NV_LOGS/perftest_helper.log): no comparison"
    return 0
  fi
  local running=0 name src kind why t
  while IFS=$'\t' read -r name src kind why; do
    [ "$kind" = perftest ] || continue
    if [ -n "$ONLY" ] && ! [[ "$name" =~ $ONLY ]]; then continue; fi
    t="${name//\//.}"
    ( nvcc "${NV_FLAGS[@]}" "$NV_SRC/$src" "$NV_BLD/perftest_helper.o" -o "$NV_BLD/bin/$t" \
        "${NVSHMEM_LINK_FLAGS[@]}" -lcuda -ldl > "$NV_LOGS/$t.build.log" 2>&1
      echo $? > "$NV_LOGS/$t.build.log.rc" ) &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
  done < "$TSV"
  wait
  say "NVSHMEM builds: $(ls "$NV_BLD/bin" | wc -l) of $(awk -F'\t' '$3 == "perftest"' "$TSV" | wc -l) perftests"
  nvshmem_run_environment > "$NV_BLD/run-environment"
  echo "$NV_HOME" > "$NV_BLD/nvshmem-home"
}
TSV="$BUILD_DIR/programs.tsv"
BLD="$BUILD_DIR/build"
if [ "$RUN_ONLY" = 0 ]; then
# ---------------------------------------------------------------- programs
# programs.tsv: name, source (relative to NVSHMEM_SRC), kind. Kinds:
#   perftest  linked with the perftest helper, run on 2 PEs with its .args
#   example   an example program
#   mpi       an example that includes <mpi.h> itself (linked with MPI)
#   shmem     an example that includes <shmem.h> itself (an OpenSHMEM program:
#             built with the OpenSHMEM library's flags, from its oshcc wrapper)
#   left_out  not built; the fourth column says why
: > "$TSV"
add_program() {  # source kind [why]
  local src="$1" kind="$2" why="${3:-}"
  local name="${src%.*}"
  if [ -n "$ONLY" ] && ! [[ "$name" =~ $ONLY ]]; then return; fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$src" "$kind" "$why" >> "$TSV"
}
cd "$NV_SRC" || die "cannot enter $NV_SRC"
for src in perftest/device/pt-to-pt/*.cu perftest/host/pt-to-pt/*.cu perftest/host/pt-to-pt/*.cpp \
           perftest/device/coll/*.cu perftest/host/coll/*.cu perftest/host/coll/*.cpp; do
  [ -f "$src" ] || continue
  # A source its folder's CMakeLists.txt does not name is not one of
  # NVSHMEM's perftests (coll/redmaxloc_latency.cu: it does not compile
  # against NVSHMEM either, MAX_ELEMS is defined nowhere).
  if [ -f "$(dirname "$src")/CMakeLists.txt" ] && ! grep -q "$(basename "$src")" "$(dirname "$src")/CMakeLists.txt"; then
    add_program "$src" left_out "not built by NVSHMEM itself (its folder's CMakeLists.txt does not name it)"
  else
    add_program "$src" perftest
  fi
done
for src in examples/*.cu examples/*.cpp; do
  [ -f "$src" ] || continue
  if grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]mpi\.h[>"]' "$src"; then
    add_program "$src" mpi
  elif grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]shmem\.h[>"]' "$src"; then
    add_program "$src" shmem
  else
    add_program "$src" example
  fi
done
# Examples in subfolders bring their own dependencies; named, with the reason.
for dir in examples/*/; do
  for src in "$dir"*.cu; do
    [ -f "$src" ] || continue
    if grep -qi 'cutlass' "$src" "$dir"*.h* 2>/dev/null; then
      add_program "$src" left_out "needs CUTLASS (NVSHMEM builds it only with NVSHMEM_BUILD_WITH_CUTLASS)"
    else
      add_program "$src" left_out "in a subfolder of examples/ with its own build"
    fi
  done
done
cd - > /dev/null || exit 2
[ -s "$TSV" ] || die "no programs found under $NV_SRC${ONLY:+ matching '$ONLY'}"
NV_BUILD_PID=""
if [ "$NV_SIDE_ONLY" = 1 ]; then
  build_nvshmem_side
  [ -s "$NV_BLD/nvshmem-version" ] || die "nothing built against NVSHMEM"
  say "NVSHMEM's side in $NV_BLD (NVSHMEM $(cat "$NV_BLD/nvshmem-version")); carry it and pass --nvshmem-build to the run"
  exit 0
fi
if [ "$VS_NVSHMEM" = 1 ]; then
  build_nvshmem_side > "$BUILD_DIR/nvshmem-build.log" 2>&1 &
  NV_BUILD_PID=$!
fi
say "$(grep -vc $'\tleft_out\t' "$TSV") programs to build from $NV_SRC against $PREFIX"

# ---------------------------------------------------------------- project
PROJ="$BUILD_DIR/project"
mkdir -p "$PROJ"
# Each compile and link step writes its output and exit status into
# logs/<target>.<step>.log / .rc (CMake's RULE_LAUNCH_* hooks).
cat > "$PROJ/log_step.sh" <<'EOF'
#!/bin/sh
# log_step.sh LOG COMMAND...: runs COMMAND, appends its output to LOG and its
# exit status to LOG.rc, exits with that status.
log="$1"; shift
"$@" >> "$log" 2>&1
rc=$?
echo "$rc" >> "$log.rc"
exit "$rc"
EOF
chmod +x "$PROJ/log_step.sh"

{
  echo "# Generated by gshmem's scripts/nvshmem_programs.sh: NVSHMEM's programs"
  echo "# built against the installed gshmem package (gshmem::nvshmem)."
  echo "set(NVSHMEM_PROGRAMS"
  awk -F'\t' '$3 != "left_out" { printf "  \"%s|%s|%s\"\n", $1, $2, $3 }' "$TSV"
  echo ")"
} > "$PROJ/programs.cmake"

cat > "$PROJ/CMakeLists.txt" <<'EOF'
# NVSHMEM's programs against an installed gshmem: find_package(gshmem) and
# gshmem::nvshmem, so <nvshmem.h> / <nvshmemx.h> are gshmem's compatibility
# headers. Generated by gshmem's scripts/nvshmem_programs.sh.
cmake_minimum_required(VERSION 3.25)
project(nvshmem_programs_on_gshmem LANGUAGES C CXX CUDA)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)   # one CUDA runtime, shared with libgshmem
set(CMAKE_CUDA_SEPARABLE_COMPILATION OFF)  # no -rdc: gshmem's device API is inline

find_package(gshmem CONFIG REQUIRED)
find_package(CUDAToolkit REQUIRED)
if(WITH_MPI_SUPPORT)
  find_package(MPI COMPONENTS CXX)
endif()
include(${CMAKE_CURRENT_SOURCE_DIR}/programs.cmake)
# gshmem's find module for OpenSHMEM (OpenSHMEM::OpenSHMEM), for the shmem kind.
list(APPEND CMAKE_MODULE_PATH ${GSHMEM_CMAKE_MODULES})

# Every error, not the front end's first hundred: the report lists them all.
add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-Xcudafe=--error_limit=100000>)

function(log_steps target)
  set_property(TARGET ${target} PROPERTY RULE_LAUNCH_COMPILE
    "${CMAKE_CURRENT_SOURCE_DIR}/log_step.sh ${LOG_DIR}/${target}.compile.log")
  set_property(TARGET ${target} PROPERTY RULE_LAUNCH_LINK
    "${CMAKE_CURRENT_SOURCE_DIR}/log_step.sh ${LOG_DIR}/${target}.link.log")
endfunction()

# A program whose library CMake did not find: reported as a missing header,
# the way a compiler would say it.
function(report_missing_header target header why)
  file(WRITE ${LOG_DIR}/${target}.obj.compile.log "fatal error: ${header}: No such file or directory (${why})\n")
  file(WRITE ${LOG_DIR}/${target}.obj.compile.log.rc "1\n")
endfunction()

# The perftest helper loads MPI's C API at run time (dlopen), so programs
# built with MPI support do not link MPI: they must not pull in the C++
# bindings that Open MPI 4 and MPICH headers declare for C++ sources
# (perftest/host/pt-to-pt/*.cpp), which would need libmpi_cxx at link time.
function(use_mpi_support target)
  if(WITH_MPI_SUPPORT AND MPI_CXX_FOUND)
    target_compile_definitions(${target} PRIVATE NVSHMEMTEST_MPI_SUPPORT OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)
    target_include_directories(${target} PRIVATE ${MPI_CXX_INCLUDE_DIRS})
  endif()
endfunction()

# The perftests' shared helper (perftest/common/utils.cu).
add_library(perftest_helper STATIC ${NVSHMEM_SRC}/perftest/common/utils.cu)
target_include_directories(perftest_helper PUBLIC ${NVSHMEM_SRC}/perftest/common ${NVML_INCLUDE})
target_link_libraries(perftest_helper PUBLIC gshmem::nvshmem CUDA::cuda_driver ${CMAKE_DL_LIBS})
use_mpi_support(perftest_helper)
log_steps(perftest_helper)

foreach(entry IN LISTS NVSHMEM_PROGRAMS)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 source)
  list(GET parts 2 kind)
  string(REPLACE "/" "." target "${name}")
  if(kind STREQUAL "mpi" AND NOT MPI_CXX_FOUND)
    find_package(MPI COMPONENTS CXX)
  endif()
  if(kind STREQUAL "mpi" AND NOT MPI_CXX_FOUND)
    report_missing_header(${target} mpi.h "CMake found no MPI for this example")
    continue()
  endif()
  if(kind STREQUAL "shmem" AND NOT OpenSHMEM_FOUND)
    find_package(OpenSHMEM)
  endif()
  if(kind STREQUAL "shmem" AND NOT OpenSHMEM_FOUND)
    report_missing_header(${target} shmem.h "CMake found no OpenSHMEM for this example: oshcc")
    continue()
  endif()
  # The program's own source compiles as its own target, so its errors are
  # its own; the executable links it with what it needs.
  add_library(${target}.obj OBJECT ${NVSHMEM_SRC}/${source})
  target_link_libraries(${target}.obj PRIVATE gshmem::nvshmem CUDA::cuda_driver)
  add_executable(${target} $<TARGET_OBJECTS:${target}.obj>)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${target}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  target_link_libraries(${target} PRIVATE gshmem::nvshmem CUDA::cuda_driver ${CMAKE_DL_LIBS})
  if(kind STREQUAL "perftest")
    target_include_directories(${target}.obj PRIVATE ${NVSHMEM_SRC}/perftest/common ${NVML_INCLUDE})
    use_mpi_support(${target}.obj)
    target_link_libraries(${target} PRIVATE perftest_helper)
  elseif(kind STREQUAL "mpi")
    target_compile_definitions(${target}.obj PRIVATE NVSHMEMTEST_MPI_SUPPORT)
    target_link_libraries(${target}.obj PRIVATE MPI::MPI_CXX)
    target_link_libraries(${target} PRIVATE MPI::MPI_CXX)
  elseif(kind STREQUAL "shmem")
    # An OpenSHMEM program: gshmem finds its OpenSHMEM routines at run time.
    target_link_libraries(${target}.obj PRIVATE OpenSHMEM::OpenSHMEM)
    target_link_libraries(${target} PRIVATE OpenSHMEM::OpenSHMEM)
  else()
    target_include_directories(${target}.obj PRIVATE ${NVSHMEM_SRC}/examples)
    use_mpi_support(${target}.obj)
  endif()
  log_steps(${target}.obj)
  log_steps(${target})
endforeach()
EOF

# ---------------------------------------------------------------- build
rm -rf "$BLD"
say "configuring (find_package(gshmem) from $PREFIX)"
configure_project() {  # build-dir log-dir [cmake options...]: the generated project, configured there
  local bld="$1" log_dir="$2"
  shift 2
  cmake -S "$PROJ" -B "$bld" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
    -DNVSHMEM_SRC="$NV_SRC" -DNVML_INCLUDE="$NVML_INCLUDE" -DLOG_DIR="$log_dir" \
    -DWITH_MPI_SUPPORT="$MPI_SUPPORT" -DGSHMEM_CMAKE_MODULES="$ROOT/cmake" "$@" > "$log_dir/configure.log" 2>&1
}
if ! configure_project "$BLD" "$LOGS"; then
  tail -30 "$LOGS/configure.log"
  die "configuring the programs' project failed (see $LOGS/configure.log)"
fi
# Helper and objects first, every one attempted (-k), then the executables:
# a failed compile is a finding, not a reason to stop.
OBJ_TARGETS=(perftest_helper)
while IFS=$'\t' read -r name src kind why; do
  t="${name//\//.}"
  # An example CMake could not set up (no MPI, no OpenSHMEM) has its verdict written already.
  [ "$kind" = left_out ] || [ -f "$LOGS/$t.obj.compile.log.rc" ] || OBJ_TARGETS+=("$t.obj")
done < "$TSV"
say "compiling ${#OBJ_TARGETS[@]} sources (-j$JOBS; logs in $LOGS)"
cmake --build "$BLD" -j"$JOBS" --target "${OBJ_TARGETS[@]}" -- -k > "$LOGS/build-objects.log" 2>&1
last_rc() { [ -f "$1" ] && tail -1 "$1"; }
LINK_TARGETS=()
helper_ok=0
[ "$(last_rc "$LOGS/perftest_helper.compile.log.rc")" = 0 ] && helper_ok=1
while IFS=$'\t' read -r name src kind why; do
  t="${name//\//.}"
  [ "$kind" = left_out ] && continue
  [ "$(last_rc "$LOGS/$t.obj.compile.log.rc")" = 0 ] || continue
  [ "$kind" = perftest ] && [ "$helper_ok" = 0 ] && continue
  LINK_TARGETS+=("$t")
done < "$TSV"
if [ "${#LINK_TARGETS[@]}" -gt 0 ]; then
  say "linking ${#LINK_TARGETS[@]} programs"
  cmake --build "$BLD" -j"$JOBS" --target "${LINK_TARGETS[@]}" -- -k > "$LOGS/build-link.log" 2>&1
else
  say "nothing to link: no program compiled$([ "$helper_ok" = 0 ] && echo ' (and the perftest helper did not)')"
fi

# Status files the report reads: <target>.built when the executable exists.
while IFS=$'\t' read -r name src kind why; do
  [ "$kind" = left_out ] && continue
  t="${name//\//.}"
  [ -x "$BLD/bin/$t" ] && echo "$BLD/bin/$t" > "$LOGS/$t.built"
done < "$TSV"


# --build-variant: the perftests again, with the variant's flags, from the
# same generated project in a build folder of their own.
if [ -n "$VARIANT_FLAGS" ]; then
  rm -rf "$VAR_BLD" "$VAR_LOGS"
  mkdir -p "$VAR_LOGS"
  say "building the perftests again as variant '$VARIANT' ($VARIANT_FLAGS; logs in $VAR_LOGS)"
  VAR_TARGETS=()
  while IFS=$'\t' read -r name src kind why; do
    [ "$kind" = perftest ] && [ -f "$LOGS/${name//\//.}.built" ] && VAR_TARGETS+=("${name//\//.}")
  done < "$TSV"
  if [ "${#VAR_TARGETS[@]}" -eq 0 ]; then
    say "variant '$VARIANT': no perftest built in the default build, nothing to build"
  elif configure_project "$VAR_BLD" "$VAR_LOGS" -DCMAKE_CUDA_FLAGS="$VARIANT_FLAGS" -DCMAKE_CXX_FLAGS="$VARIANT_FLAGS"; then
    cmake --build "$VAR_BLD" -j"$JOBS" --target "${VAR_TARGETS[@]}" -- -k > "$VAR_LOGS/build.log" 2>&1
    say "variant '$VARIANT': $(ls "$VAR_BLD/bin" 2>/dev/null | wc -l) of ${#VAR_TARGETS[@]} perftests built"
  else
    say "variant '$VARIANT': configuring failed (see $VAR_LOGS/configure.log)"
  fi
fi

if [ -n "$NV_BUILD_PID" ]; then
  say "waiting for NVSHMEM's build"
  wait "$NV_BUILD_PID"
  cat "$BUILD_DIR/nvshmem-build.log"
fi
fi  # RUN_ONLY = 0

# How the reports name the two libraries, without the folders of the machine
# they ran on (the tables are kept as results): gshmem by the version its
# installed headers carry, NVSHMEM by its version where its headers carry one
# and by the wheel it came from.
gshmem_label() {
  local v
  v=$(sed -n 's/^#define GSHMEM_VERSION_STRING "\(.*\)"/\1/p' "$1/include/gshmem/version.h" 2>/dev/null)
  echo "gshmem${v:+ $v} (installed)"
}
nvshmem_label() {
  local v
  v=$(nvshmem_version "$1")
  [ "$v" = unknown ] && v=""
  case "$1" in
    *-packages/nvidia/nvshmem*) echo "NVSHMEM${v:+ $v} (the nvidia-nvshmem wheel)" ;;
    *) echo "NVSHMEM${v:+ $v}" ;;
  esac
}

if [ "$VS_NVSHMEM" = 1 ] && [ "$RUN_ONLY" = 1 ] && [ ! -s "$NV_BLD/run-environment" ]; then
  build_nvshmem_side
fi

# ---------------------------------------------------------------- run
GPUS=0
if command -v nvidia-smi > /dev/null 2>&1; then
  GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
  IFS=',' read -ra visible <<< "$CUDA_VISIBLE_DEVICES"
  [ "${#visible[@]}" -lt "$GPUS" ] && GPUS=${#visible[@]}
fi
RUN_NOTE=""
SHARED_NOTE=""
MAX_PES=$GPUS  # one PE per GPU, unless they share
if [ "$BUILD_ONLY" = 1 ]; then
  RUN_NOTE="not run (--build-only)"
elif [ "$GPUS" -lt 2 ] && [ "$GPUS" -ge 1 ] && [ "${GSHMEM_TEST_SHARE_GPUS:-0}" = 1 ]; then
  # As the tests do (tests/support/test_main.cpp): the PEs share the GPU.
  # Correctness only; NCCL refuses two ranks on one GPU, so programs that
  # bootstrap from a unique id fail in this mode.
  export GSHMEM_ALLOW_GPU_SHARING=1
  SHARED_NOTE="PEs share $GPUS GPU (GSHMEM_TEST_SHARE_GPUS=1)"
  MAX_PES=4
elif [ "$GPUS" -lt 2 ]; then
  RUN_NOTE="not run ($GPUS GPU(s) here; 2 needed)"
elif ! command -v mpirun > /dev/null 2>&1; then
  RUN_NOTE="not run (no mpirun)"
fi
if [ -z "$RUN_NOTE" ]; then
  default_nps=2
  [ "$GPUS" -ge 4 ] && default_nps=2,4
  NP_LIST=${NP_LIST:-$default_nps}
  COLL_NP_LIST=${COLL_NP_LIST:-$default_nps}
  IFS=',' read -ra EXAMPLE_NPS <<< "$NP_LIST"
  IFS=',' read -ra COLL_NPS <<< "$COLL_NP_LIST"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0
  # As users launch: a plain mpirun (Open MPI binds each rank to one core
  # for N <= 2), unless --bind-to-none.
  MPIRUN=(mpirun -x CUDA_MODULE_LOADING -x NCCL_NVLS_ENABLE)
  LAUNCH_NOTE="plain mpirun"
  [ "$BIND_NONE" = 1 ] && { MPIRUN+=(--bind-to none); LAUNCH_NOTE="mpirun --bind-to none"; }
  [ -n "$SHARED_NOTE" ] && MPIRUN+=(--oversubscribe -x GSHMEM_ALLOW_GPU_SHARING)
  # --vs-nvshmem: both builds print NVSHMEM's machine-readable rows.
  VS_RUN=0
  if [ "$VS_NVSHMEM" = 1 ]; then
    # PEs sharing a GPU are compared only under MPS with the SMs split
    # (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, which NVSHMEM needs for every
    # routine there): both libraries then run alike, though not over NVLink.
    shared_alike=0
    [ -n "$SHARED_NOTE" ] && [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && [ -n "${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-}" ] &&
      shared_alike=1
    if [ -s "$NV_BLD/run-environment" ] && [ "$MAX_PES" -ge 2 ] && { [ -z "$SHARED_NOTE" ] || [ $shared_alike = 1 ]; }; then
      [ $shared_alike = 1 ] && SHARED_NOTE="$SHARED_NOTE under MPS, $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE% of the SMs a PE, both libraries"
      VS_RUN=1
      export NVSHMEM_MACHINE_READABLE_OUTPUT=1
      MPIRUN+=(-x NVSHMEM_MACHINE_READABLE_OUTPUT)
      [ "$REMOTE" = 1 ] || rm -f "$NV_LOGS"/*.run.log "$NV_LOGS"/*.run.log.rc
    elif [ -n "$SHARED_NOTE" ]; then
      say "no comparison with NVSHMEM: the PEs share a GPU without MPS and a split of its SMs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE)"
    else
      say "no comparison with NVSHMEM: nothing built against it (see the build step's messages)"
    fi
  fi
  # --remote: both builds reach their peer through UCX; logs of their own.
  RUN_LOGS="$LOGS" NV_RUN_LOGS="$NV_LOGS" GSHMEM_RUN_OPTS=() NVSHMEM_RUN_OVERRIDES=()
  if [ "$REMOTE" = 1 ]; then
    RUN_LOGS="$BUILD_DIR/logs-remote" NV_RUN_LOGS="$BUILD_DIR/logs-nvshmem-remote"
    mkdir -p "$RUN_LOGS" "$NV_RUN_LOGS"
    rm -f "$RUN_LOGS"/*.run.log* "$NV_RUN_LOGS"/*.run.log*
    GSHMEM_RUN_OPTS=(--mpirun -x GSHMEM_REMOTE_PEERS=all -x "UCX_TLS=${REMOTE_UCX_TLS:-self,posix,cma,tcp}"
                     -x UCX_WARN_UNUSED_ENV_VARS=n --)
    NVSHMEM_RUN_OVERRIDES=(NVSHMEM_REMOTE_TRANSPORT=ucx NVSHMEM_DISABLE_P2P=1)
    say "every peer remote: gshmem with GSHMEM_REMOTE_PEERS=all, NVSHMEM with ${NVSHMEM_RUN_OVERRIDES[*]}"
  fi
  run_one() {  # program np log [mpirun options --] args...
    local prog="$1" np="$2" log="$3" opts=()
    shift 3
    if [ "${1:-}" = "--mpirun" ]; then
      shift
      while [ "$1" != "--" ]; do opts+=("$1"); shift; done
      shift
    fi
    {
      echo "# mpirun -np $np $(basename "$prog") $*"
      # stdin from /dev/null: mpirun forwards its stdin to rank 0, which
      # otherwise drains the program list this loop reads.
      timeout -k 10 "$TIMEOUT" "${MPIRUN[@]}" "${opts[@]}" -np "$np" "$prog" "$@" < /dev/null
    } > "$log" 2>&1
    echo $? > "$log.rc"
  }
  say "running the built programs ($GPUS GPUs; examples on ${NP_LIST} PEs, pt-to-pt perftests on 2, collective ones on ${COLL_NP_LIST}; ${TIMEOUT}s each)"
  while IFS=$'\t' read -r name src kind why; do
    t="${name//\//.}"
    [ -f "$LOGS/$t.built" ] || continue
    if [ -n "$ONLY" ] && ! [[ "$name" =~ $ONLY ]]; then continue; fi  # --run-only --only: a subset of the build
    if [ "$kind" = perftest ]; then
      [ "$MAX_PES" -ge 2 ] || continue
      args_file="$NV_SRC/${src%.*}.args"
      lines=("")
      if [ -f "$args_file" ]; then
        mapfile -t lines < <(grep -v '^[[:space:]]*$' "$args_file" || true)
        [ "${#lines[@]}" -eq 0 ] && lines=("")
        [ "$ALL_ARGS" = 1 ] || lines=("${lines[0]}")
      fi
      perftest_nps=(2)
      [[ "$name" == */coll/* ]] && perftest_nps=("${COLL_NPS[@]}")
      for pnp in "${perftest_nps[@]}"; do
      [ "$pnp" -le "$MAX_PES" ] || { say "  $name np=$pnp: skipped ($GPUS GPUs)"; continue; }
      k=0
      for line in "${lines[@]}"; do
        k=$((k + 1))
        suffix=""
        [ "${#lines[@]}" -gt 1 ] && suffix=".a$k"
        run_gshmem() {  # log suffix
          # shellcheck disable=SC2086  # an .args line is a list of words
          run_one "$BLD/bin/$t" "$pnp" "$RUN_LOGS/$t.np$pnp$suffix$1.run.log" "${GSHMEM_RUN_OPTS[@]}" $line
          say "  $name np=$pnp ${line:+($line) }${1:+[${1#.}] }exit $(cat "$RUN_LOGS/$t.np$pnp$suffix$1.run.log.rc")"
        }
        run_nvshmem() {  # log suffix
          local nv_opts=()
          local kv over
          while read -r kv; do
            for over in "${NVSHMEM_RUN_OVERRIDES[@]}"; do [ "${kv%%=*}" = "${over%%=*}" ] && kv=""; done
            [ -n "$kv" ] && nv_opts+=(-x "$kv")
          done < "$NV_BLD/run-environment"
          for over in "${NVSHMEM_RUN_OVERRIDES[@]}"; do nv_opts+=(-x "$over"); done
          # shellcheck disable=SC2086
          run_one "$NV_BLD/bin/$t" "$pnp" "$NV_RUN_LOGS/$t.np$pnp$suffix$1.run.log" --mpirun "${nv_opts[@]}" -- $line
          say "  $name np=$pnp, NVSHMEM's build ${1:+[${1#.}] }exit $(cat "$NV_RUN_LOGS/$t.np$pnp$suffix$1.run.log.rc")"
        }
        run_variant() {  # log suffix: the --build-variant build, logs of its own
          [ -n "$VARIANT" ] && [ "$REMOTE" = 0 ] && [ -x "$VAR_BLD/bin/$t" ] || return 0
          local var_opts=()
          [ -n "$VARIANT_ENV" ] && var_opts=(--mpirun -x "$VARIANT_ENV" --)
          mkdir -p "$VAR_LOGS"
          # shellcheck disable=SC2086
          run_one "$VAR_BLD/bin/$t" "$pnp" "$VAR_LOGS/$t.np$pnp$suffix$1.run.log" "${var_opts[@]}" $line
          say "  $name np=$pnp, variant '$VARIANT' ${1:+[${1#.}] }exit $(cat "$VAR_LOGS/$t.np$pnp$suffix$1.run.log.rc")"
        }
        if [ "$VS_RUN" = 1 ] && [ -x "$NV_BLD/bin/$t" ]; then
          # Rounds alternate which build goes first (gshmem, NVSHMEM, then
          # NVSHMEM, gshmem, ...), so that a drift of the machine (clocks,
          # temperature) during a program's runs favours neither; a
          # --build-variant build runs between the two.
          for ((round = 1; round <= REPEAT; round++)); do
            rs=""
            [ "$round" -gt 1 ] && rs=".r$round"
            if (( round % 2 == 1 )); then run_gshmem "$rs"; run_variant "$rs"; run_nvshmem "$rs"
            else run_nvshmem "$rs"; run_variant "$rs"; run_gshmem "$rs"; fi
          done
        else
          run_gshmem ""
          run_variant ""
        fi
      done
      done
    elif [ "$REMOTE" = 0 ]; then
      for np in "${EXAMPLE_NPS[@]}"; do
        [ "$np" -le "$MAX_PES" ] || { say "  $name np=$np: skipped ($GPUS GPUs)"; continue; }
        if [ "$kind" = shmem ]; then
          # Open MPI's mpirun starts OpenSHMEM programs too. Its one-sided
          # component osc/rdma crashes in shmem_finalize after OSHMEM's UCX
          # layer (Open MPI 4.1.4); OpenSHMEM programs do not need it. With
          # a CUDA-aware UCX (Open MPI 4.1.6 on a GPU machine) shmem_init
          # itself crashes unless UCX keeps to host transports.
          OMPI_MCA_osc='^rdma' UCX_TLS=self,sm,tcp run_one "$BLD/bin/$t" "$np" "$LOGS/$t.np$np.run.log"
        else
          run_one "$BLD/bin/$t" "$np" "$LOGS/$t.np$np.run.log"
        fi
        say "  $name np=$np exit $(cat "$LOGS/$t.np$np.run.log.rc")"
      done
    fi
  done < "$TSV"
fi

# ---------------------------------------------------------------- names
if [ "$NAMES" = 1 ]; then
  say "counting NVSHMEM's public names against $PREFIX/include/gshmem/compat"
  if python3 "$ROOT/scripts/nvshmem_names.py" "$NV_SRC" --prefix "$PREFIX" --arch "$ARCH" \
       --work "$BUILD_DIR/names" > "$BUILD_DIR/names.txt" 2>&1; then
    cat "$BUILD_DIR/names.txt"
  else
    say "counting the names failed (see $BUILD_DIR/names.txt)"
  fi
fi

# ---------------------------------------------------------------- report
CHANGED=$(find "$NV_SRC" -newer "$STAMP_FILE" -print 2>/dev/null | head -5)
[ -z "$CHANGED" ] || say "WARNING: files in $NV_SRC changed during this run: $CHANGED"
python3 "$ROOT/scripts/nvshmem_programs_report.py" "$BUILD_DIR" \
  --title "NVSHMEM programs against $(gshmem_label "$PREFIX")${SHARED_NOTE:+; $SHARED_NOTE}" ${RUN_NOTE:+--run-note "$RUN_NOTE"} \
  || die "the report failed"
say "report: $BUILD_DIR/report.md; logs: $LOGS"
if [ "${VS_RUN:-0}" = 1 ]; then
  say "gshmem against NVSHMEM, perftest by perftest"
  vs_variant=()
  [ "$REMOTE" = 1 ] && vs_variant=(--variant remote)
  python3 "$ROOT/scripts/nvshmem_perftests_vs.py" "$BUILD_DIR" "${vs_variant[@]}" \
    --title "NVIDIA's perftests${vs_variant:+, every peer remote (UCX)}: $(gshmem_label "$PREFIX") against $(nvshmem_label "$(cat "$NV_BLD/nvshmem-home")"), $GPUS GPUs, $LAUNCH_NOTE${SHARED_NOTE:+ ($SHARED_NOTE)}, $(date -u '+%Y-%m-%d %H:%M UTC')" \
    || say "the comparison table failed"
  if [ -n "$VARIANT" ] && [ "$REMOTE" = 0 ]; then
    python3 "$ROOT/scripts/nvshmem_perftests_vs.py" "$BUILD_DIR" --build "$VARIANT" \
      --title "NVIDIA's perftests: $(gshmem_label "$PREFIX") ${VARIANT_FLAGS:+built with $VARIANT_FLAGS}${VARIANT_ENV:+run with $VARIANT_ENV} against $(nvshmem_label "$(cat "$NV_BLD/nvshmem-home")"), $GPUS GPUs, $LAUNCH_NOTE${SHARED_NOTE:+ ($SHARED_NOTE)}, $(date -u '+%Y-%m-%d %H:%M UTC')" \
      || say "the comparison table of variant '$VARIANT' failed"
    python3 "$ROOT/scripts/nvshmem_perftests_vs.py" "$BUILD_DIR" --between "$VARIANT" \
      || say "the table of the default build against variant '$VARIANT' failed"
  fi
fi
