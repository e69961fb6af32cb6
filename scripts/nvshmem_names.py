#!/usr/bin/env python3
"""Counts how much of NVSHMEM's public API gshmem's compatibility headers
cover, name by name.

usage: nvshmem_names.py (NVSHMEM | --names FILE) [--prefix DIR | --build-dir DIR]
                        [--nvcc NVCC] [--arch SM] [--work DIR] [--list KIND...]
                        [--expect FILE] [--write-expected FILE]

NVSHMEM is a checkout of NVSHMEM's source tree, an installed NVSHMEM (a
prefix with include/), an unpacked nvidia-nvshmem wheel, or the wheel file
itself (.whl, as `pip download nvidia-nvshmem-cu12==3.8.0` saves it; only
its headers are read out of it); nothing is changed there. The names are
what a program that includes NVSHMEM's <nvshmem.h> and <nvshmemx.h> can use:
the two headers are run through nvcc's preprocessor (with stand-ins, in
--work, for the two headers NVSHMEM's build generates from .in files), and
the public names (nvshmem_ / nvshmemx_ functions and types, NVSHMEM_ /
NVSHMEMX_ constants and object-like macros; not NVSHMEM's internal nvshmemi_
names, function-like helper macros or include guards) are read from the
result. Then one generated translation unit, compiled once with nvcc against
gshmem's compatibility headers (the installed ones with --prefix, else this
tree's include/ and the generated headers of --build-dir, default build/),
probes each name on its own line, and the compiler's messages sort them:

  provided  the name is declared (the probe compiled, or failed for a reason
            other than the name being unknown: host-only, overloaded, ...)
  refused   the probe failed with a message saying gshmem does not provide it
            ("not provided")
  missing   the name is unknown ("identifier ... is undefined")

Prints the counts per kind and in all, and writes WORK/names.tsv (name, kind,
verdict). --list missing (or provided, refused) also prints those names.
--names FILE probes the names of FILE (lines "name<TAB>kind", # comments)
instead of reading NVSHMEM's source. --expect FILE checks against a list
of that form whose header holds the baseline ("# baseline: N provided"):
every name it lists must be provided, and at least N names in all; a name
that went missing, or a count below the baseline, fails (exit 1), each
named. --write-expected FILE writes the provided names with the count as
its baseline (how the checked-in list, tests/compat/nvshmem_provided.tsv,
is made from NVSHMEM's source; tests/compat/nvshmem38_provided.tsv from the
3.8.0 wheel). The CPU tests compat_nvshmem_names_census and
compat_nvshmem38_names_census run --names and --expect on those lists, so
they need no NVSHMEM; compat_nvshmem38_wheel_census runs the census on the
3.8.0 wheel's own headers (downloaded with pip);
tests/compat/nvshmem_names_test.py tests the parsing on text made up there.
Exit status: 0 when the counts were made (and met --expect), 1 when
--expect failed, 2 when the script could not do its job.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("function", "type", "constant", "macro")
VERDICTS = ("provided", "refused", "missing")
# What NVSHMEM's build generates from .in files under src/include; the
# stand-ins take 0 for every @VARIABLE@ and leave every #cmakedefine off.
GENERATED_HEADERS = ("non_abi/nvshmem_version.h", "non_abi/nvshmem_build_options.h")


def fail(message):
    print("nvshmem_names: " + message, file=sys.stderr)
    sys.exit(2)


# ------------------------------------------------------------------ parsing
# Pure functions of text: tests/compat/nvshmem_names_test.py calls them.

_STRING_OR_CHAR = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_LINE_MARKER = re.compile(r"^\s*#.*$", re.MULTILINE)


def strip_literals(text):
    """The preprocessed text without string and character literals and line
    markers (names inside messages are not declarations)."""
    return _LINE_MARKER.sub("", _STRING_OR_CHAR.sub('""', text))


def names_from_preprocessed(text):
    """{name: kind} of the public functions, types and constants in the
    preprocessed text of NVSHMEM's headers: a lower-case nvshmem_/nvshmemx_
    name followed by '(' is a function, one ending in _t a type, an
    upper-case NVSHMEM_/NVSHMEMX_ name left after preprocessing a constant
    (an enumerator)."""
    code = strip_literals(text)
    names = {}
    for m in re.finditer(r"\b(nvshmemx?_[A-Za-z0-9_]+)\b(\s*\()?", code):
        name, call = m.group(1), m.group(2)
        if name.endswith("_t"):
            names.setdefault(name, "type")
        elif call:
            names[name] = "function"
    for m in re.finditer(r"\b(NVSHMEMX?_[A-Z0-9_]+)\b", code):
        names.setdefault(m.group(1), "constant")
    return names


def macros_from_defines(text):
    """The public object-like macros in `cpp -dM` output: NVSHMEM_/NVSHMEMX_
    (or nvshmem_/nvshmemx_) names, less function-like helpers (NVSHMEM's
    headers use those to generate its routines) and include guards (_H)."""
    macros = set()
    for m in re.finditer(r"^#define\s+((?:NVSHMEMX?|nvshmemx?)_[A-Za-z0-9_]+)(\()?", text, re.MULTILINE):
        name, function_like = m.group(1), m.group(2)
        if function_like or re.search(r"_H_?$", name):
            continue
        macros.add(name)
    return macros


def probe_source(names, includes=("nvshmem.h", "nvshmemx.h")):
    """The translation unit that probes `names` ([(name, kind)]), and
    {line: name}: each probe is on a line of its own. A name defined as a
    macro counts as declared whatever it expands to; otherwise a function
    is probed by its address, anything else by sizeof."""
    lines = ["#include <%s>" % h for h in includes]
    line_of = {}
    for k, (name, kind) in enumerate(names):
        lines.append("#if !defined(%s)" % name)
        operand = "&" + name if kind == "function" else name
        lines.append("__host__ __device__ inline void gshmem_probe_%d() { (void)sizeof(%s); }" % (k, operand))
        line_of[len(lines)] = name
        lines.append("#endif")
    return "\n".join(lines) + "\n", line_of


_DIAGNOSTIC = re.compile(r"^(?P<file>.*?)\((?P<line>\d+)\): (?:catastrophic )?error[^:]*: (?P<text>.*)$")


def classify(compiler_output, probe_file, line_of):
    """{name: verdict} for every probed name, from nvcc's messages on the
    probe file (EDG format: 'file(line): error: text'). A diagnostic saying
    "not provided" refuses the name; "is undefined" (or "undeclared") leaves
    it missing; no diagnostic, or any other, means it is declared."""
    verdict = {name: "provided" for name in line_of.values()}
    base = os.path.basename(probe_file)
    for raw in compiler_output.splitlines():
        m = _DIAGNOSTIC.match(raw.strip())
        if not m or os.path.basename(m.group("file")) != base:
            continue
        name = line_of.get(int(m.group("line")))
        if name is None:
            continue
        text = m.group("text")
        if "not provided" in text:
            verdict[name] = "refused"
        elif ("is undefined" in text or "undeclared" in text) and verdict[name] != "refused":
            verdict[name] = "missing"
    return verdict


def read_names_file(path):
    """([(name, kind)], baseline or None) from a names file: one
    "name<TAB>kind" a line (a third column, the verdict, is ignored), blank
    lines and # comments skipped; "# baseline: N provided" sets the
    baseline."""
    names, baseline = [], None
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = re.match(r"#\s*baseline:\s*(\d+)\s+provided", line)
            if m:
                baseline = int(m.group(1))
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) < 2 or fields[1] not in KINDS:
                raise ValueError("%s:%d: not 'name<TAB>kind' with a kind of %s: %r"
                                 % (path, number, ", ".join(KINDS), line))
            names.append((fields[0], fields[1]))
    return names, baseline


def expectation_failures(expected, baseline, verdicts):
    """Lines naming what fails the expectation: each expected name that is
    not provided, and a provided count below the baseline."""
    problems = ["%s (%s) is no longer provided (%s)" % (name, kind, verdicts.get(name, "not probed"))
                for name, kind in expected if verdicts.get(name) != "provided"]
    provided = sum(1 for v in verdicts.values() if v == "provided")
    if baseline is not None and provided < baseline:
        problems.append("%d names provided, below the baseline of %d" % (provided, baseline))
    return problems


def expected_file_text(names, verdicts, origin):
    """The text of a names file listing the provided names, with their count
    as the baseline."""
    provided = [(n, k) for n, k in names if verdicts[n] == "provided"]
    lines = ["# NVSHMEM public names that gshmem's compatibility headers provide, as counted",
             "# by scripts/nvshmem_names.py against %s (%d names probed)." % (origin, len(names)),
             "# A name leaving this list, or the count dropping, fails the census tests (tests/compat);",
             "# regenerate with: scripts/nvshmem_names.py NVSHMEM (source tree, install or wheel) "
             "--write-expected THIS_FILE",
             "# baseline: %d provided" % len(provided)]
    lines += ["%s\t%s" % nk for nk in provided]
    return "\n".join(lines) + "\n"


def summary(kinds, verdicts):
    """Lines of counts: per kind, then all."""
    rows = []
    for kind in KINDS + ("all",):
        mine = [n for n in verdicts if kind == "all" or kinds[n] == kind]
        if not mine:
            continue
        count = {v: sum(1 for n in mine if verdicts[n] == v) for v in VERDICTS}
        rows.append("%-9s %5d names: provided %5d, refused %4d, missing %5d"
                    % (kind, len(mine), count["provided"], count["refused"], count["missing"]))
    return rows


# ------------------------------------------------------------- the tools


def run(command, what):
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as e:
        fail("%s: cannot run %s: %s" % (what, command[0], e))


def write_generated_headers(src_include, out_dir):
    for relative in GENERATED_HEADERS:
        template = os.path.join(src_include, relative + ".in")
        if not os.path.isfile(template):
            fail("%s is missing (not an NVSHMEM 3.x source tree?)" % template)
        with open(template) as f:
            text = f.read()
        text = re.sub(r"^#cmakedefine.*$", "", text, flags=re.MULTILINE)
        text = re.sub(r"@[A-Za-z0-9_]+@", "0", text)
        os.makedirs(os.path.dirname(os.path.join(out_dir, relative)), exist_ok=True)
        with open(os.path.join(out_dir, relative), "w") as f:
            f.write(text)


def nvshmem_names(args, src_include, generated=True):
    """{name: kind} from NVSHMEM's headers in src_include; generated: the
    folder is a source tree's, whose version and build-option headers are
    made here from their .in files (an installed tree has its own)."""
    stand_ins = os.path.join(args.work, "nvshmem-generated")
    if generated:
        write_generated_headers(src_include, stand_ins)
    else:
        os.makedirs(stand_ins, exist_ok=True)
    main = os.path.join(args.work, "nvshmem_headers.cu")
    with open(main, "w") as f:
        f.write("#include <nvshmem.h>\n#include <nvshmemx.h>\n")
    common = [args.nvcc, "-std=c++17", "-x", "cu", "-I" + stand_ins, "-I" + src_include]
    pre = run(common + ["-E", main], "preprocessing NVSHMEM's headers")
    if pre.returncode != 0:
        fail("preprocessing NVSHMEM's headers failed:\n" + pre.stdout[-4000:])
    defines = run(common + ["-E", "-Xcompiler", "-dM", main], "listing NVSHMEM's macros")
    if defines.returncode != 0:
        fail("listing NVSHMEM's macros failed:\n" + defines.stdout[-4000:])
    names = names_from_preprocessed(pre.stdout)
    for macro in macros_from_defines(defines.stdout):
        names[macro] = "macro"
    return names


def nvshmem_version(src):
    """The version in NVSHMEM's top-level CMakeLists.txt (project VERSION
    x.y.z[.w]), or "(version unknown)"."""
    try:
        with open(os.path.join(src, "CMakeLists.txt")) as f:
            m = re.search(r"\bVERSION\s+(\d+\.\d+\.\d+)", f.read().split("project(", 1)[-1])
        return m.group(1) if m else "(version unknown)"
    except OSError:
        return "(version unknown)"


def installed_version(include):
    """The version an installed tree's non_abi/nvshmem_version.h states, or
    "(version unknown)"."""
    try:
        with open(os.path.join(include, "non_abi", "nvshmem_version.h")) as f:
            m = re.search(r'NVSHMEM_VENDOR_BASE_VERSION_STRING\s+"([^"]+)"', f.read())
        return m.group(1) if m else "(version unknown)"
    except OSError:
        return "(version unknown)"


def headers_of_wheel(wheel, work):
    """The include folder of an nvidia-nvshmem wheel, unpacked into work:
    only the headers are taken out of the archive."""
    import zipfile
    out = os.path.join(work, "wheel-headers")
    prefix = "nvidia/nvshmem/include/"
    try:
        with zipfile.ZipFile(wheel) as z:
            members = [m for m in z.namelist() if m.startswith(prefix) and not m.endswith("/")]
            if not members:
                fail("%s holds no %s (not an nvidia-nvshmem wheel?)" % (wheel, prefix))
            if os.path.isdir(out):
                import shutil
                shutil.rmtree(out)
            for m in members:
                z.extract(m, out)
    except (OSError, zipfile.BadZipFile) as e:
        fail("cannot read the wheel %s: %s" % (wheel, e))
    return os.path.join(out, prefix)


def locate_headers(tree, work):
    """(include folder, is a source tree, version) of NVSHMEM_SRC: a source
    checkout (src/include, with .in templates), an installed tree (a prefix
    with include/, an unpacked nvidia-nvshmem wheel with
    nvidia/nvshmem/include/, or the include folder itself), or the wheel
    file (.whl) as pip downloads it."""
    if os.path.isfile(tree) and tree.endswith(".whl"):
        include = headers_of_wheel(tree, work)
        return include, False, installed_version(include)
    source = os.path.join(tree, "src", "include")
    if os.path.isfile(os.path.join(source, "non_abi", "nvshmem_version.h.in")):
        return source, True, nvshmem_version(tree)
    for include in (os.path.join(tree, "nvidia", "nvshmem", "include"), os.path.join(tree, "include"), tree):
        if os.path.isfile(os.path.join(include, "non_abi", "nvshmem_version.h")):
            return include, False, installed_version(include)
    return source, True, nvshmem_version(tree)


def gshmem_includes(args):
    if args.prefix:
        dirs = [os.path.join(args.prefix, "include", "gshmem", "compat"), os.path.join(args.prefix, "include")]
    else:
        dirs = [os.path.join(ROOT, "include", "gshmem", "compat"), os.path.join(ROOT, "include"),
                os.path.join(args.build_dir, "include")]
    if not os.path.isfile(os.path.join(dirs[0], "nvshmem.h")):
        fail("%s has no nvshmem.h (gshmem's compatibility headers)" % dirs[0])
    return dirs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nvshmem_src", nargs="?")
    parser.add_argument("--names", help="probe the names of this file instead of NVSHMEM's source")
    parser.add_argument("--expect", help="fail unless every name of this file is provided, and the baseline met")
    parser.add_argument("--write-expected", help="write the provided names, with their count as baseline")
    place = parser.add_mutually_exclusive_group()
    place.add_argument("--prefix", help="an installed gshmem to test")
    place.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                       help="this tree's build folder (its generated headers); default build/")
    parser.add_argument("--nvcc", default="nvcc")
    parser.add_argument("--arch", default="90")
    parser.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "gshmem-nvshmem-names"))
    parser.add_argument("--list", nargs="*", default=[], choices=VERDICTS, help="print these verdicts' names")
    args = parser.parse_args()

    if (args.nvshmem_src is None) == (args.names is None):
        fail("give either NVSHMEM_SRC or --names FILE")
    expected, baseline = [], None
    if args.expect:
        try:
            expected, baseline = read_names_file(args.expect)
        except (OSError, ValueError) as e:
            fail("--expect: %s" % e)
    os.makedirs(args.work, exist_ok=True)
    includes = gshmem_includes(args)

    if args.names:
        try:
            listed, _ = read_names_file(args.names)
        except (OSError, ValueError) as e:
            fail("--names: %s" % e)
        names = dict(listed)
        origin = "the names of %s" % os.path.basename(args.names)
        if not names:
            fail("%s lists no names" % args.names)
    else:
        src_include, is_source, version = locate_headers(args.nvshmem_src, args.work)
        if not (os.path.isfile(os.path.join(src_include, "nvshmem.h")) and
                os.path.isfile(os.path.join(src_include, "nvshmemx.h"))):
            fail("%s is not an NVSHMEM source tree, installed tree or wheel (no src/include/nvshmem.h and "
                 "nvshmemx.h)" % args.nvshmem_src)
        names = nvshmem_names(args, src_include, generated=is_source)
        origin = "NVSHMEM %s's headers" % version
        if not names:
            fail("no public names found in NVSHMEM's headers")
    ordered = sorted(names.items())
    # A name no header declares: it must come out missing. Where it does not,
    # the probes never reached the compiler's name lookup (a header not found,
    # reported in the host compiler's format, which classify does not read),
    # and every verdict would read "provided".
    canary = "gshmemi_census_canary_declared_nowhere"
    source, line_of = probe_source(ordered + [(canary, "function")])
    probe = os.path.join(args.work, "gshmem_probes.cu")
    with open(probe, "w") as f:
        f.write(source)
    compiled = run([args.nvcc, "-std=c++17", "-arch=sm_" + args.arch, "-Xcudafe", "--error_limit=1000000"] +
                   ["-I" + d for d in includes] + ["-x", "cu", "-c", probe, "-o", os.devnull],
                   "compiling the probes")
    with open(os.path.join(args.work, "gshmem_probes.log"), "w") as f:
        f.write(compiled.stdout)
    verdicts = classify(compiled.stdout, probe, line_of)
    if verdicts.pop(canary) != "missing":
        fail("the probes did not compile (a name declared nowhere was not reported undefined; see %s):\n%s"
             % (os.path.join(args.work, "gshmem_probes.log"), compiled.stdout[-2000:]))
    elsewhere = [l for l in compiled.stdout.splitlines()
                 if _DIAGNOSTIC.match(l.strip()) and os.path.basename(_DIAGNOSTIC.match(l.strip()).group("file"))
                 != os.path.basename(probe)]
    if elsewhere:
        fail("gshmem's headers themselves failed to compile (see %s):\n%s"
             % (os.path.join(args.work, "gshmem_probes.log"), "\n".join(elsewhere[:10])))

    with open(os.path.join(args.work, "names.tsv"), "w") as f:
        for name, kind in ordered:
            f.write("%s\t%s\t%s\n" % (name, kind, verdicts[name]))
    print("NVSHMEM's public names (%s) against gshmem's compatibility headers (%s):"
          % (origin, includes[0]))
    for row in summary(names, verdicts):
        print("  " + row)
    for wanted in args.list:
        print("%s:" % wanted)
        for name, kind in ordered:
            if verdicts[name] == wanted:
                print("  %-9s %s" % (kind, name))
    print("per name: %s" % os.path.join(args.work, "names.tsv"))
    if args.write_expected:
        with open(args.write_expected, "w") as f:
            f.write(expected_file_text(ordered, verdicts, origin))
        print("wrote %s" % args.write_expected)
    if args.expect:
        problems = expectation_failures(expected, baseline, verdicts)
        for p in problems:
            print("census: " + p)
        if problems:
            print("census: FAILED against %s (%d problem(s))" % (args.expect, len(problems)))
            return 1
        print("census: every one of the %d expected names is provided (baseline %s)"
              % (len(expected), baseline))
    return 0


if __name__ == "__main__":
    sys.exit(main())
