#!/bin/sh
# Runs a GUI test binary as assistive technology sees it: on a private Xvfb display (from :590;
# the desktop e2e tests use :90-:579), in a private D-Bus session whose AT-SPI bus is started
# first (Qt's bridge waits for org.a11y.Bus to appear; a screen reader would start it), with
# Qt's AT-SPI bridge forced on. Its runtime folder (the AT-SPI bus socket) is made in TMPDIR and
# removed afterwards.
set -eu
if [ -z "${FB_ATSPI_SESSION:-}" ]; then
  runtime=$(mktemp -d)
  trap 'rm -rf "$runtime"' EXIT
  chmod 700 "$runtime"
  export FB_ATSPI_SESSION=1 XDG_RUNTIME_DIR="$runtime"
  dbus-run-session -- "$0" "$@"
  exit
fi
dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress >/dev/null
export QT_QPA_PLATFORM=xcb QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1
exec xvfb-run -a -n 590 -s "-screen 0 1280x800x24 -nolisten tcp" "$@"
