#!/usr/bin/env python3
"""Reports what scripts/nvshmem_programs.sh found: which of NVSHMEM's programs
build against gshmem, how they ran, and which NVSHMEM names the others miss.

usage: nvshmem_programs_report.py BUILD_DIR [--title TEXT] [--run-note TEXT] [--out FILE]

Reads BUILD_DIR/programs.tsv (name, source, kind, why) and the logs under
BUILD_DIR/logs (<target>.obj.compile.log, <target>.link.log, their .rc files,
<target>.built, <target>.np<N>[.a<k>].run.log and .rc; <target> is the name
with '/' replaced by '.'; the perftests' shared helper is perftest_helper).
Writes BUILD_DIR/report.md (or --out) and prints it:
  1. the table "program | built | ran | result";
  2. the programs left out, and why: the NVSHMEM names the compiler or linker
     could not find (or found only on the other side, host or device), missing
     headers, other errors;
  3. the missing NVSHMEM names grouped by feature, with the programs that use them.
Needs only the Python standard library.
"""
import argparse
import os
import re
import sys
from collections import OrderedDict, defaultdict

HELPER = "perftest_helper"

# ------------------------------------------------------------------ errors
# One compiler or linker message that names something missing:
#   (regex, what): what is "name" (an undefined identifier), "host" (a device
#   routine called from host code: gshmem has no host form of it), "device"
#   (a host routine called from device code), "signature" (the name exists
#   with another signature), "header" (a missing header), "link".
QUOTE = "['\u2018\u2019`\"]"
MESSAGES = [
    # nvcc's front end (EDG)
    (re.compile(r'error: identifier "([A-Za-z_]\w*)" is undefined'), "name"),
    (re.compile(r'error: calling a __device__ function\("([^"]*)"\) from a __host__ function'), "host"),
    (re.compile(r'error: calling a __host__ function\("([^"]*)"\) from a __(?:global|device)__ function'),
     "device"),
    (re.compile(r'error: no instance of (?:overloaded )?function "([A-Za-z_]\w*)'), "signature"),
    (re.compile(r'cannot open source file "([^"]+)"'), "header"),
    # GCC
    (re.compile(r"error: " + QUOTE + r"([A-Za-z_]\w*)" + QUOTE +
                r" (?:was not declared in this scope|does not name a type|has not been declared)"), "name"),
    (re.compile(r"error: there are no arguments to " + QUOTE + r"([A-Za-z_]\w*)" + QUOTE), "name"),
    (re.compile(r"fatal error: ([^:\s]+): No such file or directory"), "header"),
    # ld and nvlink
    (re.compile(r"undefined reference to " + QUOTE + r"([A-Za-z_][\w:]*)" + r"(?:\(|" + QUOTE + ")"), "link"),
    (re.compile(r"Undefined reference to '([A-Za-z_]\w*)'"), "link"),
]
ERROR_LINE = re.compile(r"(?:\berror\b|undefined reference|Undefined reference)", re.IGNORECASE)


def is_nvshmem_name(name):
    return name.lower().startswith("nvshmem")


def name_in_mangled(text):
    """The NVSHMEM routine inside a mangled name such as
    _ZN32_INTERNAL_..._Z1kPi13nvshmem_int_pE1: length-prefixed identifiers."""
    for m in re.finditer(r"(\d+)([A-Za-z_]\w*)", text):
        n = int(m.group(1))
        ident = m.group(2)
        if n <= len(ident) and is_nvshmem_name(ident[:n]):
            return ident[:n]
    m = re.match(r"([A-Za-z_]\w*)", text)
    return m.group(1) if m else None


def name_at_caret(source_line, caret_line):
    """The identifier a caret line (EDG's '   ^') points at."""
    col = caret_line.find("^")
    if col < 0 or col >= len(source_line):
        return None
    m = re.match(r"[A-Za-z_]\w*", source_line[col:])
    return m.group(0) if m else None


class Findings:
    """What one compile or link log says is missing."""

    def __init__(self):
        self.names = OrderedDict()   # NVSHMEM name -> context: "host", "device", "signature" or ""
        self.others = OrderedDict()  # other undefined identifiers / symbols
        self.headers = []
        self.errors = []             # error lines that named nothing we recognise

    def add_name(self, name, context=""):
        if not name:
            return
        if is_nvshmem_name(name):
            if name not in self.names or (context and not self.names[name]):
                self.names[name] = context
        elif name not in self.others:
            self.others[name] = context

    def empty(self):
        return not (self.names or self.others or self.headers or self.errors)


def host_context(name):
    """Context of a name a host compiler (a .cpp source) does not know: RMA and
    atomics are "host" (gshmem has them on the device only, so far); other
    names are simply missing."""
    if "_on_stream" not in name and re.search(r"put|get|atomic|_p$|_g$|signal|quiet|fence", name):
        return "host"
    return ""


def parse_log(text, host_source=False):
    """Findings of one compile/link log. host_source: the source was compiled by
    the host compiler (a .cpp file), so every name it misses is a host name."""
    f = Findings()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        matched = False
        for regex, what in MESSAGES:
            m = regex.search(line)
            if not m:
                continue
            matched = True
            value = m.group(1)
            if what == "header":
                if value not in f.headers:
                    f.headers.append(value)
            elif what in ("host", "device"):
                name = name_in_mangled(value)
                if (not name or not is_nvshmem_name(name)) and i + 2 < len(lines):
                    name = name_at_caret(lines[i + 1], lines[i + 2]) or name
                f.add_name(name, what)
            elif what == "signature":
                f.add_name(value, "signature")
            elif what == "link":
                f.add_name(value.split("::")[-1], "link")
            else:
                f.add_name(value, host_context(value) if host_source else "")
            break
        if not matched and ERROR_LINE.search(line) and "error_limit" not in line:
            text_line = line.strip()
            if (text_line and not text_line.startswith(("make", "gmake", "collect2", "#"))
                    and "errors detected in the compilation" not in text_line
                    and text_line not in f.errors):
                f.errors.append(text_line)
    return f


# ------------------------------------------------------------------ features
# (feature, predicate(name, context)): the first that matches names the feature.
def _rx(pattern):
    r = re.compile(pattern, re.IGNORECASE)
    return lambda name, ctx: bool(r.search(name))


FEATURES = [
    ("teams", _rx(r"team")),
    ("NVSHMEM-style init (attributes, unique id, MPI communicator, status)",
     _rx(r"init_attr|uniqueid|init_with|set_attr|hostlib|init_status|init_thread|query_thread|_init_attr_t")),
    ("collective launch", _rx(r"collective_launch")),
    ("reductions and other collectives",
     _rx(r"reduce|fcollect|collect|broadcast|alltoall|_to_all")),
    ("RMA and atomics on stream",
     lambda n, c: bool(re.search(r"_on_stream", n)) and bool(re.search(r"put|get|_p_|_g_|atomic|amo", n))),
    ("device barrier / sync (called by one thread)",
     lambda n, c: bool(re.search(r"barrier|sync", n)) and c == "device"),
    ("barriers and sync", _rx(r"barrier|sync")),
    ("host-initiated RMA and atomics",
     lambda n, c: c == "host" and bool(re.search(r"put|get|_p$|_g$|atomic|signal|quiet|fence", n))),
    ("CUDA module (cubin) support", _rx(r"cumodule")),
    ("buffer registration", _rx(r"buffer_(?:un)?register")),
    ("version and info", _rx(r"version|info_get|vendor")),
    ("on-stream forms (other)", _rx(r"_on_stream")),
    ("status codes and error macros (NVSHMEM's non_abi/nvshmemx_error.h)", _rx(r"success|error")),
    ("NVSHMEM internals (nvshmemi_)", _rx(r"^nvshmemi_")),
]


def feature_of(name, context):
    for feature, predicate in FEATURES:
        if predicate(name, context):
            return feature
    return "other"


def describe(name, context):
    """A name with where it was missing: host calls of a device-only routine
    and device calls of a host-only one are told apart."""
    return {"host": f"{name} (host)", "device": f"{name} (device)",
            "signature": f"{name} (other signature)"}.get(context, name)


# ------------------------------------------------------------------ inputs
def read(path):
    try:
        with open(path, errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def read_rc(path):
    """The last exit status a .rc file holds (None when absent)."""
    text = read(path)
    if not text:
        return None
    values = [v for v in text.split() if v.lstrip("-").isdigit()]
    return int(values[-1]) if values else None


def load_programs(build_dir):
    programs = []
    with open(os.path.join(build_dir, "programs.tsv")) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line:
                continue
            parts = (line.split("\t") + ["", "", "", ""])[:4]
            programs.append(dict(name=parts[0], source=parts[1], kind=parts[2], why=parts[3],
                                 target=parts[0].replace("/", ".")))
    return programs


RUN_LOG = re.compile(r"^(?P<target>.+)\.np(?P<np>\d+)(?:\.a(?P<k>\d+))?\.run\.log$")
CHECK_LINE = re.compile(r"(?i)\b(fail\w*|error\w*|mismatch\w*|incorrect|wrong|abort\w*|segmentation|"
                        r"timed out|passed|success\w*)\b")


# Programs whose own code is wrong for the runs made here, whatever library
# they link: read from their sources; listed so that their failures are not
# taken for gshmem's (or hidden).
DEFECTS = {
    "examples/put-block":
        "no barrier between the kernel that puts into the next PE and the check of recv_data: "
        "a PE may check before its peer's put has landed (a race with any library)",
    "examples/moe_shuffle":
        "_exchange_offsets reads expert counts with nvshmem_int64_g from PE threadIdx.x / npes "
        "for threadIdx.x < npes * num_experts, i.e. from PEs up to num_experts - 1 = 15: "
        "PEs that do not exist with fewer than 16 PEs (gshmem reports the invalid PE and traps)",
}


def run_result(text, rc):
    """A run's outcome: exit status, and the program's own check output (the
    first line that reports a check or an error, else its last line)."""
    if rc is None:
        status = "no exit status"
    elif rc in (124, 137):
        status = "timed out"
    elif rc == 0:
        status = "exit 0"
    else:
        status = f"exit {rc}"
    # NVSHMEM's machine-readable rows (nvshmem_programs.sh --vs-nvshmem) are
    # figures, not what a program says of itself: the comparison reads them.
    lines = [ln.strip() for ln in (text or "").splitlines()
             if ln.strip() and not ln.startswith("# mpirun") and not ln.startswith("&&&& PERF")]
    if any("invalid device ordinal" in ln for ln in lines):
        # The program picks GPU <node-local PE> itself (cudaSetDevice): with
        # fewer GPUs than PEs it cannot run, whatever library it links.
        return status, "needs a GPU per PE: it selects GPU <node-local PE> itself (invalid device ordinal)"
    said = next((ln for ln in lines if CHECK_LINE.search(ln)), None)
    if said is None and lines:
        said = lines[-1]
    if said and len(said) > 90:
        said = said[:87] + "..."
    return status, said


def load_runs(logs, target):
    runs = []
    for fname in sorted(os.listdir(logs)):
        m = RUN_LOG.match(fname)
        if not m or m.group("target") != target:
            continue
        path = os.path.join(logs, fname)
        status, said = run_result(read(path), read_rc(path + ".rc"))
        label = f"np{m.group('np')}" + (f" args#{m.group('k')}" if m.group("k") else "")
        runs.append(dict(label=label, status=status, said=said))
    return runs


def analyse(build_dir):
    logs = os.path.join(build_dir, "logs")
    programs = load_programs(build_dir)
    helper_rc = read_rc(os.path.join(logs, HELPER + ".compile.log.rc"))
    helper = parse_log(read(os.path.join(logs, HELPER + ".compile.log")) or "")
    for p in programs:
        if p["kind"] == "left_out":
            p["built"] = "left out"
            p["findings"] = Findings()
            p["runs"] = []
            continue
        t = p["target"]
        host_source = p["source"].endswith((".cpp", ".cc", ".cxx", ".c"))
        compile_log = read(os.path.join(logs, t + ".obj.compile.log")) or ""
        compile_rc = read_rc(os.path.join(logs, t + ".obj.compile.log.rc"))
        link_log = read(os.path.join(logs, t + ".link.log")) or ""
        link_rc = read_rc(os.path.join(logs, t + ".link.log.rc"))
        f = parse_log(compile_log, host_source)
        built = os.path.exists(os.path.join(logs, t + ".built"))
        if built:
            p["built"] = "yes"
        elif compile_rc is None:
            p["built"] = "no (not compiled)"
        elif compile_rc != 0:
            p["built"] = "no (compile)"
        elif p["kind"] == "perftest" and helper_rc != 0:
            p["built"] = "no (helper)"
        elif link_rc is not None and link_rc != 0:
            p["built"] = "no (link)"
            lf = parse_log(link_log)
            for n, c in lf.names.items():
                f.add_name(n, c)
            for n in lf.others:
                f.add_name(n, "link")
            f.errors += [e for e in lf.errors if e not in f.errors]
        else:
            p["built"] = "no (not linked)"
        p["findings"] = f
        p["runs"] = load_runs(logs, t) if built else []
    return programs, helper, helper_rc


# ------------------------------------------------------------------ output
def short_list(items, limit=6):
    items = list(items)
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" (+{len(items) - limit} more)"


def build_report(programs, helper, helper_rc, title, run_note=None):
    out = [f"# {title}", ""]
    perftests = [p for p in programs if p["kind"] == "perftest"]
    n_built = sum(1 for p in programs if p["built"] == "yes")
    n_total = sum(1 for p in programs if p["kind"] != "left_out")
    out.append(f"{n_built} of {n_total} programs built; "
               f"{sum(1 for p in programs if p['kind'] == 'left_out')} left out by kind "
               "(see below).")
    if perftests:
        if helper_rc is None:
            state = "was not compiled"
        elif helper_rc == 0:
            state = "compiled"
        else:
            state = "did NOT compile"
        out.append(f"The perftests' shared helper (perftest/common/utils.cu) {state}"
                   + (f"; it misses {len(helper.names)} NVSHMEM name(s), so no perftest links."
                      if helper_rc not in (None, 0) else "."))
    out += ["", "| program | built | ran | result |", "|---|---|---|---|"]
    for p in programs:
        f = p["findings"]
        if p["built"] == "yes":
            if p["runs"]:
                ran = "; ".join(f"{r['label']}: {r['status']}" for r in p["runs"])
                result = "; ".join(r["said"] or "-" for r in p["runs"])
            else:
                ran = run_note or "not run"
                result = "built"
        elif p["kind"] == "left_out":
            ran, result = "-", p["why"]
        else:
            ran = "-"
            if f.names:
                result = f"missing {len(f.names)}: " + short_list(describe(n, c) for n, c in f.names.items())
            elif p["built"] == "no (helper)":
                result = "its own source compiles; the perftest helper does not (see below)"
            elif f.headers:
                result = "missing header " + ", ".join(f.headers)
            elif f.others:
                result = "undefined: " + short_list(f.others)
            elif f.errors:
                result = f.errors[0][:100]
            else:
                result = "failed (see its log)"
        if p["name"] in DEFECTS:
            result += " (defect of the program: see below)"
        out.append(f"| {p['name']} | {p['built']} | {ran} | {result.replace('|', '/')} |")
    out.append("")

    defective = [p for p in programs if p["name"] in DEFECTS]
    if defective:
        out += ["## Programs with a defect of their own", ""]
        for p in defective:
            out.append(f"- **{p['name']}**: {DEFECTS[p['name']]}")
        out.append("")

    # Left out, and why.
    not_built = [p for p in programs if p["built"] != "yes"]
    if not_built or (helper_rc not in (None, 0)):
        out += ["## Left out, and why", ""]
        if helper_rc not in (None, 0):
            out.append(f"- **perftest/common/utils.cu** (the helper every perftest links): "
                       + why_text(helper))
        for p in not_built:
            if p["kind"] == "left_out":
                out.append(f"- **{p['name']}**: {p['why']}")
            elif p["built"] == "no (helper)" and p["findings"].empty():
                out.append(f"- **{p['name']}**: compiles; the helper above does not")
            else:
                extra = "; the helper above does not compile either" if p["built"] == "no (helper)" else ""
                out.append(f"- **{p['name']}** ({p['built'][4:-1]}): " + why_text(p["findings"]) + extra)
        out += ["", "A compile stops at the first of nvcc's passes that fails: once these names exist, "
                "further ones may show (e.g. device code calling a host-only routine).", ""]

    # Missing names by feature.
    users = OrderedDict()   # name -> [context, programs]; a context once seen is kept
    sources = [(f"perftest helper (all {len(perftests)} perftests)", helper)] if helper_rc not in (None, 0) else []
    sources += [(p["name"], p["findings"]) for p in programs]
    for who, f in sources:
        for n, c in f.names.items():
            entry = users.setdefault(n, ["", []])
            entry[0] = entry[0] or c
            entry[1].append(who)
    if users:
        by_feature = OrderedDict((feature, []) for feature, _ in FEATURES)
        by_feature["other"] = []
        for n, (c, who) in users.items():
            by_feature[feature_of(n, c)].append((n, c, who))
        out += ["## Missing NVSHMEM names, by feature", "",
                "(host) = called from host code, where gshmem has only the device routine; "
                "(device) = called from device code, where gshmem has only the host routine.", "",
                "| feature | name | used by |", "|---|---|---|"]
        for feature, entries in by_feature.items():
            for n, c, who in sorted(entries, key=lambda e: e[0]):
                out.append(f"| {feature} | `{describe(n, c)}` | {short_list(who, 4)} |")
        out.append("")
    return "\n".join(out)


def why_text(f):
    parts = []
    if f.names:
        parts.append("missing NVSHMEM names: " + ", ".join(f"`{describe(n, c)}`" for n, c in f.names.items()))
    if f.headers:
        parts.append("missing headers: " + ", ".join(f.headers))
    if f.others:
        text = "other undefined names: " + short_list(f.others, 10)
        if any(re.match(r"cu[A-Z]|CU[A-Z_]", n) for n in f.others):
            text += " (CUDA driver API: the program expects <nvshmem.h> to include <cuda.h>)"
        parts.append(text)
    if f.errors and not f.names:
        parts.append("errors: " + " / ".join(e[:160] for e in f.errors[:2]))
    return "; ".join(parts) or "failed without a recognisable message (see its log)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dir")
    ap.add_argument("--title", default="NVSHMEM programs against gshmem")
    ap.add_argument("--run-note", help="what to show in the ran column of built programs that did not run")
    ap.add_argument("--out", help="output file (default BUILD_DIR/report.md)")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.build_dir, "programs.tsv")):
        print(f"nvshmem_programs_report: no programs.tsv in {args.build_dir}", file=sys.stderr)
        return 1
    programs, helper, helper_rc = analyse(args.build_dir)
    text = build_report(programs, helper, helper_rc, args.title, args.run_note)
    out = args.out or os.path.join(args.build_dir, "report.md")
    with open(out, "w") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
