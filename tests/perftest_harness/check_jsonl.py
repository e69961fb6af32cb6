#!/usr/bin/env python3
"""Parses a perftest JSON-lines file with Python's json module and checks the
fields every consumer (summary, plots) relies on."""
import json
import sys

REQUIRED = {"binary", "name", "pes", "threads", "metric", "value", "unit", "better",
            "floor", "ratio", "min", "max", "repeats", "iters"}

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
assert rows, "no rows"
for row in rows:
    missing = REQUIRED - row.keys()
    assert not missing, f"missing fields {missing} in {row}"
    assert ("size" in row) != ("n" in row), f"exactly one of size/n expected: {row}"
    assert row["better"] in ("lower", "higher"), row
    if row["floor"] is not None:
        assert abs(row["ratio"] - row["value"] / row["floor"]) < 1e-3 * row["ratio"], row
    else:
        assert row["ratio"] is None, row
print(f"{len(rows)} rows parse and carry every field")
