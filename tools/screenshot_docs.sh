#!/usr/bin/env bash
# Serve the docs site on localhost and screenshot the home page, the
# verified-layouts index and one spec page with headless Chromium, so a
# person can look at what the site shows. Fails if a screenshot is blank
# (fewer than 20 colours). Needs Debian's chromium package and Pillow.
# Usage: tools/screenshot_docs.sh [OUT_DIR] [SITE_DIR]
#   OUT_DIR   default reports/screenshots
#   SITE_DIR  an already built site (default: build one into site/)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-reports/screenshots}"
site="${2:-}"
mkdir -p "$out"
if [ -z "$site" ]; then
  site=site
  mkdocs build --strict --quiet --site-dir "$site"
fi
port=8765
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
shoot() {  # url file
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d)" --window-size=1280,1600 --hide-scrollbars \
    --screenshot="$2" "$1" >/dev/null 2>&1
  python3 - "$2" <<'PY'
import sys
from PIL import Image
colours = Image.open(sys.argv[1]).convert("RGB").getcolors(maxcolors=1 << 16)
count = len(colours) if colours is not None else 1 << 16
if count < 20:
    sys.exit(f"{sys.argv[1]}: only {count} colours, the page looks blank")
print(f"wrote {sys.argv[1]} ({count} colours)")
PY
}
shoot "http://127.0.0.1:$port/" "$out/home.png"
shoot "http://127.0.0.1:$port/generated/" "$out/verified-layouts.png"
shoot "http://127.0.0.1:$port/generated/specs-grid-grid-uneven/" "$out/spec-grid-uneven.png"
