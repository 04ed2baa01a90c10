#!/usr/bin/env bash
# Regenerates the README's picture: a frame of the Delta robot's HTML animation, taken by
# headless Chromium (Debian's `chromium` package), as `spark-viewer/tests/html.rs` takes its.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo run --release -p spark-examples --example delta >/dev/null
profile=$(mktemp -d)
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --hide-scrollbars \
    --window-size=900,560 --user-data-dir="$profile" --screenshot=docs/images/delta.png \
    "file://$PWD/examples/out/delta.html#t=1.2&paused" >/dev/null 2>&1
rm -rf "$profile"
echo "wrote docs/images/delta.png"
