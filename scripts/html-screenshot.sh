#!/usr/bin/env bash
# Regenerates docs/screenshots/report.png, the README's picture of the HTML report: a real
# simulator run (scenario janky, 120 Hz, seed 1, 30 s of device time, as fast as possible) is
# recorded, `fpstop report --format html` turns the recording into the page, and headless
# Chromium (Debian's chromium) photographs the top of it. Nothing here uses the network.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium >/dev/null || { echo "needs chromium: apt-get install chromium" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/fpstop" .
"$tmp/fpstop" --scenario janky --hz 120 --seed 1 --headless --duration 30s --speed 0 \
  --record "$tmp/janky.jsonl.gz" >/dev/null
"$tmp/fpstop" report "$tmp/janky.jsonl.gz" --format html -o "$tmp/report.html"
mkdir -p docs/screenshots
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-color-profile=srgb \
  --proxy-server=127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$tmp/profile" \
  --window-size=1000,1180 --screenshot="$tmp/report.png" "file://$tmp/report.html" >/dev/null 2>&1
# Fewer colours make a much smaller PNG; pngquant is optional (apt-get install pngquant).
if command -v pngquant >/dev/null; then
  pngquant --force --quality 70-95 --output docs/screenshots/report.png "$tmp/report.png"
else
  cp "$tmp/report.png" docs/screenshots/report.png
fi
echo "wrote docs/screenshots/report.png ($(wc -c < docs/screenshots/report.png) bytes)"
