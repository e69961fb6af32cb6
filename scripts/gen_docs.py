#!/usr/bin/env python3
"""Keeps the generated parts of the documentation in step with their sources.

A generated part sits between two marker lines in a Markdown file:

    <!-- BEGIN generated: KIND SOURCE -->
    ...
    <!-- END generated -->

KIND says how to make it, SOURCE (relative to the repository root) what from:
  env      SOURCE is src/env.def: the table of GSHMEM_* variables
  code     SOURCE is a program: its text in a fenced block (the README's example)
  targets  SOURCE is a benchmark summary.md: its "Targets" table, headed by
           the run (date, GPUs, commit, command) from machine.txt beside it
  vs       SOURCE is a vs_nvshmem.jsonl: gshmem against NVSHMEM, row by row

  gen_docs.py --write         rewrite every generated part
  gen_docs.py --check         exit 1 with a diff where a part is stale
  gen_docs.py --check-links   exit 1 naming every relative link to a missing file
  gen_docs.py --max-readme-bytes N   (with --check) the README's size limit
Standard library only.
"""
import argparse
import difflib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "CHANGELOG.md", "examples/README.md"]
MARKER = re.compile(r"^<!-- BEGIN generated: (\w+) (\S+) -->\n(.*?)^<!-- END generated -->\n", re.M | re.S)

ENV_LINE = re.compile(r'^GSHMEMI_ENV\(\s*(\w+)\s*,\s*(\w+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)\s*$')


class GenError(Exception):
    pass


def doc_files(root):
    files = [f for f in DOCS if os.path.exists(os.path.join(root, f))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        files += sorted("docs/" + f for f in os.listdir(docs) if f.endswith(".md"))
    return files


def parse_env_def(text, where="env.def"):
    """[(name, kind, default, doc)] from an env.def text; a line that starts
    with GSHMEMI_ENV but does not parse is an error naming the line."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped.startswith("GSHMEMI_ENV("):
            continue
        m = ENV_LINE.match(stripped)
        if not m:
            raise GenError(f"{where}:{number}: cannot parse: {stripped}")
        name, kind, default, doc = m.groups()
        unescape = lambda s: s.replace('\\"', '"').replace("\\\\", "\\")
        rows.append(("GSHMEM_" + name, kind, unescape(default), unescape(doc)))
    if not rows:
        raise GenError(f"{where}: no GSHMEMI_ENV(...) lines")
    return rows


def fmt_us(x):
    """Microseconds as people read them: 0.769, 11.3, 1210."""
    return f"{x:.3f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:.0f}"


def cell(text):
    return text.replace("|", "\\|")


def gen_env(root, source, doc):
    with open(os.path.join(root, source)) as f:
        rows = parse_env_def(f.read(), source)
    out = ["| variable | kind | default | meaning |", "|---|---|---|---|"]
    for name, kind, default, doc in rows:
        out.append(f"| `{name}` | {kind} | {('`' + default + '`') if default else '(unset)'} | {cell(doc)} |")
    return "\n".join(out) + "\n"


def gen_code(root, source, doc):
    with open(os.path.join(root, source)) as f:
        text = f.read()
    lang = "cuda" if source.endswith(".cu") else "python" if source.endswith(".py") else ""
    return f"```{lang}\n{text}{'' if text.endswith(chr(10)) else chr(10)}```\n"


def read_machine(folder):
    """date/gpus/commit/mode/command from machine.txt (key: value lines)."""
    info = {}
    path = os.path.join(folder, "machine.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(r"^(date|gpus|commit|mode|command): (.*)$", line.strip())
                if m:
                    info[m.group(1)] = m.group(2)
    return info


def run_heading(root, source, doc, title_line=None):
    folder = os.path.dirname(os.path.join(root, source))
    info = read_machine(folder)
    if "date" not in info and title_line:
        m = re.search(r"(\d{4}-\d\d-\d\d \d\d:\d\d UTC)", title_line)
        if m:
            info["date"] = m.group(1)
    if "gpus" not in info and title_line:
        m = re.search(r"(\d+ x [^,]+),", title_line)
        if m:
            info["gpus"] = m.group(1)
    command = info.get("command") or "scripts/bench.sh" + (" --quick" if info.get("mode", "quick") == "quick" else "")
    parts = [f"run `{os.path.relpath(folder, root)}`", info.get("date", "date not recorded"),
             info.get("gpus", "GPUs not recorded"), f"commit {info.get('commit', 'not recorded')}",
             f"command `{command}`"]
    link = os.path.relpath(os.path.join(root, source), os.path.dirname(os.path.join(root, doc)))
    return "Source: " + ", ".join(parts) + f" ([{os.path.basename(source)}]({link}))."


def gen_targets(root, source, doc):
    with open(os.path.join(root, source)) as f:
        lines = f.read().splitlines()
    title = lines[0] if lines and lines[0].startswith("# ") else None
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == "## Targets")
    except StopIteration:
        raise GenError(f"{source}: no '## Targets' section")
    table = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    if len(table) < 3:
        raise GenError(f"{source}: the Targets table is empty")
    return run_heading(root, source, doc, title) + "\n\n" + "\n".join(table) + "\n"


def gen_vs(root, source, doc):
    rows = []
    with open(os.path.join(root, source)) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise GenError(f"{source}:{number}: not JSON: {e}")
    out = ["| benchmark (NVSHMEM-API source) | size / n | metric | gshmem (us) | NVSHMEM (us) | gshmem / NVSHMEM |",
           "|---|---|---|---|---|---|"]
    ahead = 0
    for r in rows:
        if r.get("metric") == "round_trip" and any(
                o.get("metric") == "one_way" and o.get("name") == r.get("name") for o in rows):
            continue  # the one-way row says the same
        size = f"{r['size']} B" if "size" in r else f"n={r.get('n', '-')}"
        ratio = r["gshmem"] / r["nvshmem"]
        ahead += ratio <= 1.0
        out.append(f"| `{r['name']}` | {size} | {r['metric'].replace('_', '-')} | {fmt_us(r['gshmem'])} | "
                   f"{fmt_us(r['nvshmem'])} | {ratio:.2f} |")
    shown = len(out) - 2
    return (run_heading(root, source, doc) + f" gshmem at or ahead of NVSHMEM in {ahead} of {shown} rows.\n\n"
            + "\n".join(out) + "\n")


GENERATORS = {"env": gen_env, "code": gen_code, "targets": gen_targets, "vs": gen_vs}


def regenerate(root, text, where):
    def replace(m):
        kind, source = m.group(1), m.group(2)
        if kind not in GENERATORS:
            raise GenError(f"{where}: unknown generated kind '{kind}'")
        if not os.path.exists(os.path.join(root, source)):
            raise GenError(f"{where}: generated part '{kind}' names {source}, which does not exist")
        return f"<!-- BEGIN generated: {kind} {source} -->\n{GENERATORS[kind](root, source, where)}<!-- END generated -->\n"
    return MARKER.sub(replace, text)


LINK = re.compile(r"\]\(([^)\s]+)\)")


def broken_links(root):
    broken = []
    for doc in doc_files(root):
        with open(os.path.join(root, doc)) as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+://|^mailto:|^#", target):
                continue
            path = target.split("#")[0]
            if path and not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(doc), path))):
                broken.append(f"{doc}: link to {target}: no such file")
    return broken


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--check-links", action="store_true")
    ap.add_argument("--max-readme-bytes", type=int, default=0)
    args = ap.parse_args(argv)
    if not (args.write or args.check or args.check_links):
        ap.error("give --write, --check or --check-links")
    failed = False
    try:
        for doc in doc_files(args.root):
            path = os.path.join(args.root, doc)
            with open(path) as f:
                old = f.read()
            new = regenerate(args.root, old, doc)
            if new == old:
                continue
            if args.write:
                with open(path, "w") as f:
                    f.write(new)
                print(f"gen_docs: rewrote the generated parts of {doc}")
            elif args.check:
                failed = True
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                           f"{doc} (committed)", f"{doc} (from its sources)"))
                print(f"gen_docs: {doc} is stale: run scripts/gen_docs.py --write")
    except GenError as e:
        print(f"gen_docs: {e}", file=sys.stderr)
        return 1
    if args.check and args.max_readme_bytes:
        size = os.path.getsize(os.path.join(args.root, "README.md"))
        if size > args.max_readme_bytes:
            print(f"gen_docs: README.md is {size} bytes, more than {args.max_readme_bytes}: move detail into docs/")
            failed = True
    if args.check_links:
        for line in broken_links(args.root):
            print(f"gen_docs: {line}")
            failed = True
    if not failed and (args.check or args.check_links):
        print("gen_docs: generated parts up to date" + (", links resolve" if args.check_links else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
