#!/usr/bin/env bash
# Installs the .deb that scripts/bundle.sh built, starts the installed app
# under Xvfb with an empty home, and checks that it came up (window and
# database) and wrote nothing outside the user's data folder and the web
# view's own folders. Removes the package at the end. See docs/installers.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# Inside Xvfb (the script calls itself there): start the installed app with
# only HOME set, wait for its window and database, take a screenshot.
if [ "${1:-}" = "--inside-xvfb" ]; then
  env -i HOME="$home" PATH=/usr/bin:/bin DISPLAY="$DISPLAY" XAUTHORITY="${XAUTHORITY:-}" LANG=C.UTF-8 "$bin" >"$home.log" 2>&1 &
  app=$!
  for _ in $(seq 1 60); do
    if xwininfo -root -tree 2>/dev/null | grep -q 'gpuplan 租卡规划' &&
      [ -f "$home/.local/share/app.gpuplan.desktop/gpuplan.db" ]; then
      sleep 3
      import -window root "$shot"
      kill "$app"
      wait "$app" 2>/dev/null || true
      exit 0
    fi
    sleep 1
  done
  cat "$home.log"
  kill "$app" 2>/dev/null || true
  exit 1
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
deb="${1:-$(find "${CARGO_TARGET_DIR:-$PWD/target}/release/bundle/deb" -name '*.deb' | head -n 1)}"
echo "== installing $deb"
$SUDO dpkg -i "$deb" || { $SUDO apt-get install -f -y -qq; $SUDO dpkg -i "$deb"; }
trap '$SUDO dpkg -r gpuplan >/dev/null 2>&1 || true' EXIT

pkg_files="$(dpkg -L gpuplan)"
bin="$(printf '%s\n' "$pkg_files" | grep -E '^/usr/bin/' | head -n 1)"
for want in "$bin" /usr/share/applications/gpuplan.desktop; do
  if [ -z "$want" ] || [ ! -f "$want" ]; then echo "missing from the package: $want"; exit 1; fi
done
printf '%s\n' "$pkg_files" | grep -q '/usr/share/icons/' || { echo "no icon installed"; exit 1; }
echo "   binary $bin, desktop entry and icons installed"

home="$(mktemp -d)"
shot="${SHOT:-e2e/screenshots/installed-app.png}"
mkdir -p "$(dirname "$shot")"
export home bin shot
xvfb-run -a -s "-screen 0 1280x800x24" bash "$0" --inside-xvfb || { echo "the installed app did not come up"; exit 1; }
echo "   the installed app opened its window and its database (screenshot $shot)"

stray="$(cd "$home"; find . -type f | { grep -vE '^\./\.local/share/app\.gpuplan\.desktop/|^\./\.cache/gpuplan-app/|^\./\.local/share/gpuplan-app/' || true; })"
if [ -n "$stray" ]; then
  echo "the app wrote outside its data folder:"; echo "$stray"; exit 1
fi
echo "   files written: $(cd "$home" && find . -type f | wc -l), all in the app's own folders"
rm -rf "$home" "$home.log"
