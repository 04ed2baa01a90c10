"""Helpers shared by the reference-data scripts: writing the plain-text data files that the Rust
tests read (format in tests/data/README.md) and recording the package versions used."""

import importlib.metadata
import os
import platform

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
MODELS = os.path.join(ROOT, "tests", "models")


def versions(*packages):
    """`name version` of each installed package, and Python's."""
    out = [f"python {platform.python_version()}"]
    for p in packages:
        out.append(f"{p} {importlib.metadata.version(p)}")
    return ", ".join(out)


def fmt(x):
    """A float written so that it reads back bit for bit."""
    return repr(float(x))


def write_table(path, meta, columns, rows):
    """Writes `# key: value` lines (in order), one line of comma-separated column names and one
    line of comma-separated values per row. Values are floats, except the entries of a column
    whose name ends in `_name` (plain text without commas)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for key, value in meta:
            assert "\n" not in str(value), key
            f.write(f"# {key}: {value}\n")
        f.write(",".join(columns) + "\n")
        for row in rows:
            assert len(row) == len(columns), (len(row), len(columns))
            f.write(",".join(r if isinstance(r, str) else fmt(r) for r in row) + "\n")
    print(f"wrote {os.path.relpath(path, ROOT)}: {len(rows)} rows of {len(columns)} columns")


def pose_columns():
    """The columns of a pose: translation, then the rotation matrix row by row."""
    return ["px", "py", "pz"] + [f"r{i}{j}" for i in range(3) for j in range(3)]
