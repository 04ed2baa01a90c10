#!/usr/bin/env bash
# Extracts the MuJoCo Menagerie (the bare git snapshot this workplace keeps) into a directory
# the survey and measurement tools read: $MENAGERIE, default /tmp/menagerie. Files of 4 MiB or
# more are absent from the snapshot (67 meshes); each gets a placeholder mesh.
#
#   bash benches/menagerie/setup.sh                 # into /tmp/menagerie
#   MENAGERIE=/some/dir bash benches/menagerie/setup.sh
#
# Nothing of the Menagerie is ever committed into this repository.
set -euo pipefail
MENAGERIE="${MENAGERIE:-/tmp/menagerie}"
SNAPSHOT="${SNAPSHOT:-/work/.mirror/johnnynunez+mujoco_menagerie/repo}"
if [ ! -d "$SNAPSHOT" ]; then
    echo "no Menagerie snapshot at $SNAPSHOT (set SNAPSHOT)" >&2
    exit 1
fi
mkdir -p "$MENAGERIE"
# `git archive` writes the tree of HEAD; the objects missing from the snapshot (large files)
# make it fail, so fall back to writing file by file what is there (about a minute).
if ! git --git-dir="$SNAPSHOT" archive HEAD | tar -x -C "$MENAGERIE" 2>/dev/null; then
    echo "git archive failed; extracting the files one by one" >&2
    git --git-dir="$SNAPSHOT" ls-tree -r HEAD | while read -r mode type object path; do
        [ "$type" = blob ] || continue
        mkdir -p "$MENAGERIE/$(dirname "$path")"
        git --git-dir="$SNAPSHOT" cat-file blob "$object" >"$MENAGERIE/$path" 2>/dev/null ||
            rm -f "$MENAGERIE/$path"
    done
fi
# Each mesh absent from the snapshot becomes a small placeholder tetrahedron (listed in
# $MENAGERIE/MISSING.txt), so that MuJoCo and spark can load every robot; see placeholders.py.
python3 "$(dirname "$0")/placeholders.py" "$SNAPSHOT" "$MENAGERIE"
# The robots that count: /work/shared/menagerie/robots.tsv (directory, kind, file).
ROBOTS="${ROBOTS:-/work/shared/menagerie/robots.tsv}"
if [ -f "$ROBOTS" ]; then
    missing=0
    while IFS=$'\t' read -r dir kind file; do
        [ -f "$MENAGERIE/$dir/$file" ] || { echo "missing: $dir/$file" >&2; missing=$((missing + 1)); }
    done <"$ROBOTS"
    echo "Menagerie in $MENAGERIE; $missing of the listed robot files missing"
else
    echo "Menagerie in $MENAGERIE"
fi
