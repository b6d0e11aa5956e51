#!/usr/bin/env bash
# Screenshots of the built documentation at 1280 px, as a reader first sees it:
# the landing page and one guide page, with headless Chromium from the
# distribution's packages (Debian: apt-get install chromium).
#
#   bash tools/screenshot_docs.sh            # builds the docs first if needed
#   bash tools/screenshot_docs.sh OUT_DIR    # PNGs go to OUT_DIR (default
#                                            # docs/_build/screenshots)
#
# Look at the PNGs: the top navigation fits on one line at 1280 px, the landing
# page shows the install line, the example and the cards, and a guide page's left
# sidebar lists the guide's pages.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/_build/screenshots}"
html=docs/_build/html
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
    echo "no Chromium found: apt-get install chromium (Debian/Ubuntu)" >&2
    exit 2
fi
if [ ! -f "$html/index.html" ]; then
    python -m sphinx -q -b html docs "$html"
fi
mkdir -p "$out"
for page in index guide/intervals; do
    name="$(echo "$page" | tr / _)"
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=1280,1000 --screenshot="$out/$name.png" \
        "file://$(pwd)/$html/$page.html" >/dev/null 2>&1
    echo "$out/$name.png"
done
