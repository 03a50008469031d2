#!/usr/bin/env bash
# Screenshot pages of a built docs site with headless Chromium, opened from
# disk (file://) with the network blocked, as a user behind a firewall opens
# site/index.html: every host name resolves to nothing and every request
# would go to a dead proxy, so a formula, font or script that needs the web
# shows as broken in the picture. Fails if a screenshot is blank (fewer than
# 20 colours). Needs Debian's chromium package and Pillow (in $PYTHON,
# default python3).
#
# Usage: tools/screenshot_docs.sh [OUT_DIR] [SITE_DIR] [PAGE ...]
#   OUT_DIR   default reports/screenshots
#   SITE_DIR  an already built site (default: build the project's into site/)
#   PAGE      pages under SITE_DIR; default the project site's home, the
#             verified-layouts index, a family's seed page (its flaws) and
#             three spec pages, the last refuted with its counterexample.
# Each PAGE.html gives OUT_DIR/<its name>.png, 1280 px wide and tall enough
# for a spec page's picture.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-reports/screenshots}"
site="${2:-}"
shift $(( $# < 2 ? $# : 2 ))
pages=("$@")
if [ ${#pages[@]} -eq 0 ]; then
  pages=(index.html generated/index.html generated/seed-channel.html
         generated/specs-mesh-grid-32x32.html generated/specs-tt-tiled-pads-last-two-dims-first.html
         generated/specs-channel-round-robin-conflicts.html)
fi
mkdir -p "$out"
if [ -z "$site" ]; then
  site=site
  NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet --site-dir "$site"
fi
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
  echo "screenshot_docs: no chromium on PATH (apt-get install chromium)" >&2
  exit 2
fi
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
shoot() {  # page file
  local page="$1" png="$2"
  if [ ! -f "$site/$page" ]; then
    echo "screenshot_docs: $site/$page does not exist" >&2
    return 1
  fi
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="http://127.0.0.1:9" \
    --user-data-dir="$profile" --window-size=1280,2400 --hide-scrollbars \
    --screenshot="$png" "file://$(realpath "$site/$page")" >/dev/null 2>&1
  "${PYTHON:-python3}" - "$png" <<'PY'
import sys
from PIL import Image
colours = Image.open(sys.argv[1]).convert("RGB").getcolors(maxcolors=1 << 16)
count = len(colours) if colours is not None else 1 << 16
if count < 20:
    sys.exit(f"{sys.argv[1]}: only {count} colours, the page looks blank")
print(f"wrote {sys.argv[1]} ({count} colours)")
PY
}
for page in "${pages[@]}"; do
  name="${page%.html}"
  shoot "$page" "$out/${name//\//-}.png"
done
