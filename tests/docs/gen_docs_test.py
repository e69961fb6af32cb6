#!/usr/bin/env python3
"""scripts/gen_docs.py on made-up inputs: the env.def parser, the generated
parts (filled, stale detected, refused when their source is missing), the
link check and the README size limit.
  gen_docs_test.py SCRIPTS_DIR WORK_DIR"""
import io
import os
import shutil
import sys
from contextlib import redirect_stdout, redirect_stderr

sys.path.insert(0, sys.argv[1])
import gen_docs  # noqa: E402

work = sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "src"))
os.makedirs(os.path.join(work, "docs"))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


def run(*args):
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        rc = gen_docs.main(["--root", work, *args])
    return rc, out.getvalue()


def write(rel, text):
    with open(os.path.join(work, rel), "w") as f:
        f.write(text)


def read(rel):
    with open(os.path.join(work, rel)) as f:
        return f.read()


ENV_DEF = '''// comment lines are skipped
GSHMEMI_ENV(HEAP,  size, "1G", "Bytes per PE.")
GSHMEMI_ENV(MODE,  string, "", "Say \\"a|b\\" here.")
'''
rows = gen_docs.parse_env_def(ENV_DEF)
check(rows == [("GSHMEM_HEAP", "size", "1G", "Bytes per PE."), ("GSHMEM_MODE", "string", "", 'Say "a|b" here.')],
      f"parse_env_def rows: {rows}")
try:
    gen_docs.parse_env_def(ENV_DEF + 'GSHMEMI_ENV(BROKEN, size, 1G)\n', "x.def")
    check(False, "a malformed GSHMEMI_ENV line is refused")
except gen_docs.GenError as e:
    check("x.def:4" in str(e) and "BROKEN" in str(e), f"the error names the line: {e}")

write("src/env.def", ENV_DEF)
write("prog.cu", "int main() { return 0; }\n")
write("README.md", "# t\n<!-- BEGIN generated: code prog.cu -->\nold\n<!-- END generated -->\n[env](docs/env.md)\n")
write("docs/env.md", "# env\n<!-- BEGIN generated: env src/env.def -->\n<!-- END generated -->\n")
rc, out = run("--check")
check(rc == 1 and "README.md is stale" in out and "docs/env.md is stale" in out, f"stale parts reported: {out}")
rc, out = run("--write")
check(rc == 0, f"--write succeeds: {out}")
check("```cuda\nint main() { return 0; }\n```\n" in read("README.md"), "the program is copied into the README")
env_md = read("docs/env.md")
check("| `GSHMEM_HEAP` | size | `1G` | Bytes per PE. |" in env_md, f"env table row: {env_md}")
check("| `GSHMEM_MODE` | string | (unset) | Say \"a\\|b\" here. |" in env_md, f"escaped pipe, unset default: {env_md}")
rc, out = run("--check", "--check-links")
check(rc == 0, f"up to date after --write: {out}")

write("src/env.def", ENV_DEF + 'GSHMEMI_ENV(NEW, bool, "0", "Added later.")\n')
rc, out = run("--check")
check(rc == 1 and "GSHMEM_NEW" in out, f"a variable added to env.def makes the docs stale: {out}")
run("--write")

write("docs/links.md", "[gone](missing.md) [web](https://example.org) [anchor](#x) [ok](env.md#y)\n")
rc, out = run("--check-links")
check(rc == 1 and "docs/links.md: link to missing.md" in out and out.count("no such file") == 1,
      f"exactly the one broken link is named: {out}")
os.remove(os.path.join(work, "docs/links.md"))

rc, out = run("--check", "--max-readme-bytes", "10")
check(rc == 1 and "README.md is" in out, f"the README size limit: {out}")

write("docs/bad.md", "<!-- BEGIN generated: env src/none.def -->\n<!-- END generated -->\n")
rc, out = run("--check")
check(rc == 1 and "src/none.def" in out, f"a part whose source is missing is refused: {out}")

print(f"gen_docs_test: {'FAILED ' + str(len(failures)) if failures else 'all checks passed'}")
sys.exit(1 if failures else 0)
