#!/usr/bin/env bash
# Build the docs site, serve it on localhost, and screenshot the home page,
# the verified-layouts index and one spec page with headless Chromium, so a
# person can look at what the site shows. Needs Debian's chromium package.
# Usage: tools/screenshot_docs.sh [OUT_DIR]   (default: reports/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-reports/screenshots}"
mkdir -p "$out"
mkdocs build --strict --quiet --site-dir site
port=8765
python3 -m http.server "$port" --bind 127.0.0.1 --directory site >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
shoot() {  # url file
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d)" --window-size=1280,1600 --hide-scrollbars \
    --screenshot="$2" "$1" >/dev/null 2>&1
  echo "wrote $2"
}
shoot "http://127.0.0.1:$port/" "$out/home.png"
shoot "http://127.0.0.1:$port/generated/" "$out/verified-layouts.png"
shoot "http://127.0.0.1:$port/generated/specs-grid-grid-uneven/" "$out/spec-grid-uneven.png"
