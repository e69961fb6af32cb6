#!/usr/bin/env python3
"""scripts/nvshmem_names.py without NVSHMEM's source: its parsing of a small
made-up header (preprocessed here by the C++ compiler, as the script has
nvcc do it with NVSHMEM's), the probe file it generates, its reading of
nvcc's messages, the counts, and its refusal of a folder that is not an
NVSHMEM source tree.
usage: nvshmem_names_test.py SCRIPTS_DIR WORKDIR CXX"""
import importlib.util
import os
import shutil
import subprocess
import sys

scripts, work, cxx = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
spec = importlib.util.spec_from_file_location("nvshmem_names", os.path.join(scripts, "nvshmem_names.py"))
names_script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(names_script)

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAILED: " + what)


# ---- parsing: a header with every kind of name, and the kinds to leave out
header = os.path.join(work, "made_up_nvshmem.h")
with open(header, "w") as f:
    f.write(r"""
#ifndef MADE_UP_NVSHMEM_H
#define MADE_UP_NVSHMEM_H
#define NVSHMEM_API_H_                  /* an include guard: not a name */
#define NVSHMEM_ANSWER 42               /* public object-like macro */
#define NVSHMEMI_INTERNAL 1             /* internal macro */
#define NVSHMEM_GENERATE_P(T) void nvshmem_##T##_p(T *dest, T value, int pe);
typedef enum { NVSHMEM_CMP_EQ = 0, NVSHMEM_CMP_NE = 1 } nvshmemx_cmp_type_t;
typedef int nvshmem_team_t;
NVSHMEM_GENERATE_P(int)
NVSHMEM_GENERATE_P(long)
void nvshmemi_internal_call(void);
int printf(const char *, ...);
static inline void nvshmem_init(void) {
  nvshmemi_internal_call();
  printf("nvshmem_not_a_routine(%d) NVSHMEM_NOT_A_CONSTANT\n", NVSHMEM_ANSWER);
}
#endif
""")
pre = subprocess.run([cxx, "-E", "-x", "c++", header], stdout=subprocess.PIPE, text=True, check=True).stdout
defines = subprocess.run([cxx, "-E", "-dM", "-x", "c++", header], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
found = names_script.names_from_preprocessed(pre)
for macro in names_script.macros_from_defines(defines):
    found[macro] = "macro"
expected = {
    "nvshmem_int_p": "function",
    "nvshmem_long_p": "function",
    "nvshmem_init": "function",
    "nvshmemx_cmp_type_t": "type",
    "nvshmem_team_t": "type",
    "NVSHMEM_CMP_EQ": "constant",
    "NVSHMEM_CMP_NE": "constant",
    "NVSHMEM_ANSWER": "macro",
}
check(found == expected, "names of the made-up header: got %s" % sorted(found.items()))

# ---- the probe file: one line per name, macros guarded, functions by address
source, line_of = names_script.probe_source(sorted(expected.items()))
lines = source.splitlines()
check(lines[0] == "#include <nvshmem.h>" and lines[1] == "#include <nvshmemx.h>", "probe file includes")
check(sorted(line_of.values()) == sorted(expected), "every name probed once")
for line, name in line_of.items():
    text = lines[line - 1]
    check(name in text and lines[line - 2] == "#if !defined(%s)" % name, "probe of %s on line %d" % (name, line))
    if expected[name] == "function":
        check("sizeof(&%s)" % name in text, "function %s probed by address" % name)
    else:
        check("sizeof(%s)" % name in text, "%s probed by sizeof" % name)

# ---- nvcc's messages: undefined -> missing, "not provided" -> refused,
# other errors or none -> provided; messages about other files are ignored.
line_by_name = {name: line for line, name in line_of.items()}
probe = "/somewhere/gshmem_probes.cu"
output = "\n".join([
    '%s(%d): error: identifier "nvshmem_long_p" is undefined' % (probe, line_by_name["nvshmem_long_p"]),
    "            (void)sizeof(&nvshmem_long_p);",
    "                           ^",
    '%s(%d): error: identifier "NVSHMEM_CMP_NE" is undefined' % (probe, line_by_name["NVSHMEM_CMP_NE"]),
    "%s(%d): error: static assertion failed with \"nvshmem_init is not provided by gshmem\""
    % (probe, line_by_name["nvshmem_init"]),
    '%s(%d): error: identifier "nvshmem_init" is undefined' % (probe, line_by_name["nvshmem_init"]),
    "%s(%d): error: a __device__ function cannot be referenced here" % (probe, line_by_name["nvshmem_int_p"]),
    '/other/header.h(%d): error: identifier "x" is undefined' % line_by_name["nvshmem_team_t"],
    "4 errors detected in the compilation of \"%s\"." % probe,
])
verdicts = names_script.classify(output, probe, line_of)
check(verdicts["nvshmem_long_p"] == "missing", "undefined identifier: missing")
check(verdicts["NVSHMEM_CMP_NE"] == "missing", "undefined constant: missing")
check(verdicts["nvshmem_init"] == "refused", "'not provided': refused, also with an undefined message after it")
check(verdicts["nvshmem_int_p"] == "provided", "another error: declared, provided")
check(verdicts["nvshmem_team_t"] == "provided", "a message about another file does not count")
check(verdicts["NVSHMEM_ANSWER"] == "provided", "no message: provided")

rows = names_script.summary(expected, verdicts)
check(rows[-1].split() == ["all", "8", "names:", "provided", "5,", "refused", "1,", "missing", "2"],
      "counts in all: %s" % rows[-1])
check(any(r.split()[:2] == ["function", "3"] for r in rows), "per kind: %s" % rows)

# ---- the checked-in list and the census against it
listing = os.path.join(work, "provided.tsv")
with open(listing, "w") as f:
    f.write(names_script.expected_file_text(sorted(expected.items()), verdicts, "a made-up header"))
listed, baseline = names_script.read_names_file(listing)
check(baseline == 5, "the written list's baseline is the provided count: %s" % baseline)
check(sorted(n for n, _ in listed) == sorted(n for n in verdicts if verdicts[n] == "provided"),
      "the written list holds the provided names: %s" % listed)
check(dict(listed)["nvshmem_int_p"] == "function", "kinds kept in the list")
check(names_script.expectation_failures(listed, baseline, verdicts) == [], "the same verdicts meet the list")
worse = dict(verdicts)
worse["nvshmem_int_p"] = "missing"
problems = names_script.expectation_failures(listed, baseline, worse)
check(len(problems) == 2 and "nvshmem_int_p (function) is no longer provided" in problems[0]
      and "4 names provided, below the baseline of 5" in problems[1],
      "a name gone missing and the count below the baseline are both named: %s" % problems)
bad_list = os.path.join(work, "bad.tsv")
with open(bad_list, "w") as f:
    f.write("nvshmem_x\tfunction\nnvshmem_y routine\n")
try:
    names_script.read_names_file(bad_list)
    check(False, "a malformed list line is refused")
except ValueError as e:
    check("bad.tsv:2" in str(e), "the malformed line is named: %s" % e)
both = subprocess.run([sys.executable, os.path.join(scripts, "nvshmem_names.py"), work, "--names", listing,
                       "--work", os.path.join(work, "names-work")], stdout=subprocess.PIPE,
                      stderr=subprocess.STDOUT, text=True)
check(both.returncode == 2 and "either NVSHMEM_SRC or --names" in both.stdout,
      "NVSHMEM_SRC and --names together are refused: %d %s" % (both.returncode, both.stdout))

# ---- a folder that is not an NVSHMEM source tree is refused
refused = subprocess.run([sys.executable, os.path.join(scripts, "nvshmem_names.py"), work, "--work",
                          os.path.join(work, "names-work")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
check(refused.returncode == 2 and "is not an NVSHMEM source tree" in refused.stdout,
      "refuses a folder without NVSHMEM's headers: %d %s" % (refused.returncode, refused.stdout))

# ---- where the headers are: a source tree, an installed tree, a wheel
import zipfile
installed = os.path.join(work, "prefix")
os.makedirs(os.path.join(installed, "include", "non_abi"))
with open(os.path.join(installed, "include", "non_abi", "nvshmem_version.h"), "w") as f:
    f.write('#define NVSHMEM_VENDOR_BASE_VERSION_STRING "9.1.2"\n')
include, is_source, version = names_script.locate_headers(installed, os.path.join(work, "locate"))
check(include == os.path.join(installed, "include") and not is_source and version == "9.1.2",
      "an installed prefix: its include folder, no generated headers, its version: %s %s %s"
      % (include, is_source, version))
wheel = os.path.join(work, "nvidia_nvshmem_cu12-9.1.2-py3-none-any.whl")
with zipfile.ZipFile(wheel, "w") as z:
    z.writestr("nvidia/nvshmem/include/nvshmem.h", "/* made up */\n")
    z.writestr("nvidia/nvshmem/include/non_abi/nvshmem_version.h",
               '#define NVSHMEM_VENDOR_BASE_VERSION_STRING "9.1.2"\n')
    z.writestr("nvidia/nvshmem/lib/libnvshmem_host.so.3", "not a header")
include, is_source, version = names_script.locate_headers(wheel, os.path.join(work, "locate"))
check(os.path.isfile(os.path.join(include, "nvshmem.h")) and not is_source and version == "9.1.2"
      and not os.path.exists(os.path.join(work, "locate", "wheel-headers", "nvidia", "nvshmem", "lib")),
      "a wheel: only its headers taken out, its version: %s %s %s" % (include, is_source, version))

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
