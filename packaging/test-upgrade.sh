#!/usr/bin/env bash
# Upgrade test (issue #39, "Upgrades keep every record"): the previous release is installed from a
# signed APT repository with apt-get, used as a person would, upgraded to the new release from the
# same repository with `apt-get install`, and nothing the first one kept is lost; then a downgrade
# is refused and leaves the new release installed and working.
#
#   packaging/test-upgrade.sh OLD_DEB NEW_DEB
#
# What it does, on THIS machine (meant for a throwaway Debian 12 machine or CI, as root):
#   1. packaging/apt-repo.sh publishes OLD_DEB in a signed repository (file: source, signed-by its
#      keyring) in /etc/apt/sources.list.d/fabric-broker-upgrade-test.list; `apt-get update` of
#      that source only; `apt-get install fabric-broker=OLD`.
#   2. as a throwaway user (useradd, its own HOME, a D-Bus session from dbus-run-session and
#      gnome-keyring unlocked in it, so keychain entries are real), with the OLD version: settings
#      saved (~/.config/fabric-broker/fabric-broker.conf, written as QSettings keeps it: the app
#      saves it only from its Settings dialog; and the unit's environment file), a daily spend
#      limit (the user's policy file), proposals, one create on the embedded sandbox (approved by
#      the MCP client, the official SDK's), one declined, the approval key made in the keychain
#      (`team key`), the team schema made by `team init`, and a second team database at schema
#      version 5 (migrations 001..005 of resources/team applied with psql, as an older release
#      would have left it). Records the audit head, `audit verify`, the spend used, the settings.
#   3. apt-repo.sh again with NEW_DEB (it replaces OLD), `apt-get update`, `apt-get install
#      fabric-broker` (the upgrade). Checks the package's files (dpkg --verify, the autostart
#      conffile, the systemd user unit).
#   4. as the same user with the NEW version: the audit chain verifies across the upgrade and
#      continues from the same head; the day's spend still counts the old create (a create that
#      exceeds the limit only with it is refused); the settings are there and applied (the
#      autostart entry's Exec starts the desktop app, which serves the saved toolsets); the
#      keychain entry is there (same key, not remade); the unit passes `systemd-analyze --user
#      verify` and its ExecStart serves with the unit's environment file; the team schema made by
#      the old version is current; the version-5 schema is refused by the new app in team mode
#      with a message naming `team init`, which migrates it to 6, after which team mode works.
#      Then the unit's ExecStart once more in the unit's view of HOME (read-only but its
#      ReadWritePaths; a private mount namespace, as no user manager runs here): what it records
#      must move the day's marker (~/.local/state/fabric-broker/audit-day) as the app does.
#   5. downgrade: `apt-get install --allow-downgrades OLD_DEB` and `dpkg -i OLD_DEB` both fail
#      saying what cannot be kept; NEW stays installed, unchanged (dpkg --verify) and working.
# Cleanup (trap): the package is purged, the list file, its apt lists and the user removed, the
# private PostgreSQL stopped. It refuses to run where fabric-broker is installed already or the
# user exists.
#
# Needs: root; apt, dpkg; reprepro and gnupg (packaging/apt-repo.sh); dbus (dbus-run-session,
# dbus-send), gnome-keyring, xvfb, postgresql (15: initdb, pg_ctl; psql), systemd
# (systemd-analyze), node with tests/e2e/node_modules installed (npm ci there).
# Not root and CI not true: skipped with a message. As root or in CI (CI=true) a missing
# prerequisite is a failure. Given the same .deb twice (while developing) the checks that compare
# versions fail, as they must.
# Prints one "ok"/"FAIL" line per check and the time of each phase; exits 1 on any FAIL.
set -euo pipefail

FB_UT_USER=${FB_UPGRADE_USER:-fbupgrade}
LIST_FILE=/etc/apt/sources.list.d/fabric-broker-upgrade-test.list
apt_lock=(-o DPkg::Lock::Timeout=300) # wait for another apt or dpkg on a busy machine
PG_BINDIR=${FB_PG_BINDIR:-/usr/lib/postgresql/15/bin}

failures=0
ok()   { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
info() { echo "        $*"; }
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
indent() { sed 's/^/        /' "$@"; }
contains() { grep -qE -- "$2" "$1"; }       # contains FILE REGEX
# js FILE EXPR: the value of EXPR for o = the JSON in FILE (strings bare, anything else as JSON).
js() {
  node -e 'const fs = require("fs");
    let o; try { o = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch { o = {}; }
    let v; try { v = new Function("o", "return (" + process.argv[2] + ")")(o); } catch { v = undefined; }
    console.log(typeof v === "string" ? v : JSON.stringify(v === undefined ? null : v));' "$1" "$2"
}

phase_names=()
phase_times=()
phase_began=0
phase() { # phase NAME: ends the running phase (its time) and starts the next
  phase_end
  phase_name=$1
  phase_began=$(date +%s.%N)
  echo "== $1"
}
phase_end() {
  [ "$phase_began" != 0 ] || return 0
  local s
  s=$(awk -v a="$phase_began" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "   ($phase_name: ${s}s)"
  phase_names+=("$phase_name"); phase_times+=("$s")
  phase_began=0
}

# ==========================================================================================
# The user's side: runs as FB_UT_USER inside dbus-run-session (the root side starts it with
# `__user PHASE`). Everything it learns for a later phase goes to $FB_UT_STATE.
# ==========================================================================================

st=${FB_UT_STATE:-}
keyring_pid=
xvfb_pid=
app_pid=

client() { # client OUT.json ARGS...: the SDK client (packaging/upgrade-client.mjs)
  local out=$1; shift
  local rc=0
  node "$FB_UT_BIN/upgrade-client.mjs" "$@" >"$out" 2>"$out.err" || rc=$?
  [ "$rc" -eq 0 ] || [ -n "${quiet_client:-}" ] || { info "client $* exited $rc:"; indent "$out.err" | tail -n 20; tail -c 2000 "$out" | indent; }
  return 0
}

# Asked only once our daemon owns the name: asking earlier would have the bus activate a second
# daemon (org.freedesktop.secrets is D-Bus activatable), one without the password.
secrets_owned() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'
}
keyring_unlocked() {
  secrets_owned && dbus-send --session --print-reply --dest=org.freedesktop.secrets \
    /org/freedesktop/secrets/aliases/default org.freedesktop.DBus.Properties.Get \
    string:org.freedesktop.Secret.Collection string:Locked 2>/dev/null | grep -q 'boolean false'
}

start_keyring() { # the user's login keyring, created on first use, unlocked with its password
  gnome-keyring-daemon --foreground --unlock --components=secrets \
    <"$st/keyring-password" >/dev/null 2>"$st/keyring.log" &
  keyring_pid=$!
  local i
  for i in $(seq 1 300); do
    keyring_unlocked && return 0
    kill -0 "$keyring_pid" 2>/dev/null || break
    sleep 0.1
  done
  fail "gnome-keyring-daemon serves an unlocked login keyring on the session bus"
  indent "$st/keyring.log"
  return 1
}

stop_pid() { # stop_pid PID: SIGTERM, then SIGKILL after 10 s; returns the exit status
  local pid=$1 i rc=0
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    return 137
  fi
  wait "$pid" 2>/dev/null || rc=$?
  return "$rc"
}

user_cleanup() {
  [ -z "$app_pid" ] || stop_pid "$app_pid" || true
  [ -z "$xvfb_pid" ] || stop_pid "$xvfb_pid" || true
  [ -z "$keyring_pid" ] || stop_pid "$keyring_pid" || true
}

start_xvfb() {
  rm -f "$st/display"
  Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x800x24 3>"$st/display" >"$st/xvfb.log" 2>&1 &
  xvfb_pid=$!
  local i
  for i in $(seq 1 100); do
    [ -s "$st/display" ] && break
    sleep 0.1
  done
  [ -s "$st/display" ] || { fail "Xvfb started"; indent "$st/xvfb.log"; return 1; }
  local display
  display=$(head -n1 "$st/display")
  export DISPLAY=":$display"
}

serve_steps=tools # what serve_and_list asks through the socket

socket_path() { echo "$XDG_RUNTIME_DIR/fabric-broker.sock"; }

# serve_and_list LOG OUT.json COMMAND...: starts COMMAND (the app), waits for its socket, lists the
# tools through it (the SDK client; $serve_steps: other steps), stops it with SIGTERM. Returns the
# app's exit status.
serve_and_list() {
  local log=$1 out=$2; shift 2
  local i rc=0
  rm -f "$out"
  "$@" >"$log" 2>&1 &
  app_pid=$!
  for i in $(seq 1 200); do
    if [ -S "$(socket_path)" ]; then
      # shellcheck disable=SC2086 # a list of steps
      quiet_client=1 client "$out" socket "$(socket_path)" ${serve_steps:-tools}
      [ "$(js "$out" 'o.steps && o.steps[0] && o.steps[0].step')" = "${serve_steps%% *}" ] && break
    fi
    kill -0 "$app_pid" 2>/dev/null || break
    sleep 0.1
  done
  stop_pid "$app_pid" || rc=$?
  app_pid=
  if [ "$(js "$out" 'o.steps && o.steps[0] && o.steps[0].step')" != "${serve_steps%% *}" ]; then
    info "no answer through $(socket_path) (exit $rc); the app's output:"
    tail -n 20 "$log" | indent || true
    tail -n 5 "$out.err" 2>/dev/null | indent || true
  fi
  return "$rc"
}

dump() { # dump CLIENT.json: what the client saw and the end of the broker's stderr
  js "$1" 'o.steps' | head -c 3000 | indent || true
  js "$1" 'o.stderr' | tail -n 15 | indent || true
}

has_tool() { [ "$(js "$1" "(o.steps[0].tools || []).includes('$2')")" = true ]; }

# The autostart entry's Exec line, as a session manager runs it at login (no field codes in it).
autostart_exec() {
  local f
  f=$(dpkg -L fabric-broker | grep -m1 '^/etc/xdg/autostart/.*\.desktop$' || true)
  [ -n "$f" ] && sed -n 's/^Exec=//p' "$f" | head -n1
}

# The desktop app as autostart starts it, on the test's X display; OUT.json: the tools it serves.
run_desktop_app() {
  local out=$1 exec_line rc=0
  exec_line=$(autostart_exec || true)
  # shellcheck disable=SC2086 # the Exec line is a command line
  serve_and_list "$st/desktop.log" "$out" env QT_QPA_PLATFORM=xcb $exec_line || rc=$?
  return "$rc"
}

uri() { echo "postgresql://$1@/$2?host=$FB_UT_PGHOST&port=$FB_UT_PGPORT"; }
psql_as() { # psql_as ROLE DB: SQL on stdin
  psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$(uri "$1" "$2")"
}

# A team schema at version 5 as an older release left it: migrations 001..005 of resources/team,
# each in its own transaction with its schema_migrations row, exactly as `team init` records
# them (version, name, SHA-256 of the file), applied by the schema owner with psql.
make_v5_schema() {
  local db=$1 sql="$st/v5.sql" f n name sha
  {
    echo 'BEGIN;'
    echo 'CREATE SCHEMA IF NOT EXISTS fabric_team;'
    echo 'CREATE TABLE IF NOT EXISTS fabric_team.schema_migrations (version integer PRIMARY KEY CHECK (version > 0), name text NOT NULL, sha256 bytea NOT NULL CHECK (octet_length(sha256) = 32), applied_at timestamptz NOT NULL DEFAULT now(), applied_by name NOT NULL DEFAULT current_user);'
    echo 'COMMIT;'
    for f in "$FB_UT_MIGRATIONS"/00[1-5]_*.sql; do
      name=$(basename "$f" .sql)
      n=$((10#${name%%_*}))
      sha=$(sha256sum "$f" | awk '{ print $1 }')
      echo 'BEGIN;'
      echo "\\i $f"
      echo "INSERT INTO fabric_team.schema_migrations (version, name, sha256) VALUES ($n, '$name', decode('$sha', 'hex'));"
      echo 'COMMIT;'
    done
  } >"$sql"
  psql_as fb_owner "$db" <"$sql" >"$st/v5.log" 2>&1
}

team_status() { # team_status ROLE DB OUT: prints nothing, returns the exit status
  local rc=0
  fabric-broker team status "$(uri "$1" "$2")" >"$3" 2>&1 || rc=$?
  return "$rc"
}

# policy.json of the user: a daily limit of USD 400; each sandbox create is USD 150/month.
write_user_policy() {
  mkdir -p "$HOME/.config/fabric-broker"
  printf '%s\n' '{"spend": {"max_monthly_recurring_per_day": {"amount": 400, "currency": "USD"}}}' \
    >"$HOME/.config/fabric-broker/policy.json"
}

# ini_set FILE GROUP KEY VALUE: sets one key of a QSettings INI file, keeping everything else.
ini_set() {
  # shellcheck disable=SC2016 # JavaScript, not shell
  node -e 'const fs = require("fs");
    const [file, group, key, value] = process.argv.slice(1);
    let lines = []; try { lines = fs.readFileSync(file, "utf8").split("\n"); } catch {}
    while (lines.length && lines[lines.length - 1] === "") lines.pop();
    let start = lines.indexOf(`[${group}]`);
    if (start < 0) { if (lines.length) lines.push(""); lines.push(`[${group}]`); start = lines.length - 1; }
    let end = start + 1;
    while (end < lines.length && !lines[end].startsWith("[")) end++;
    const at = lines.slice(start + 1, end).findIndex((l) => l.startsWith(key + "="));
    if (at >= 0) lines[start + 1 + at] = `${key}=${value}`;
    else { let i = end; while (i > start + 1 && lines[i - 1] === "") i--; lines.splice(i, 0, `${key}=${value}`); }
    fs.writeFileSync(file, lines.join("\n") + "\n");' "$@"
}
ini_set_all() { ini_set "$1" broker toolsets 'read, mutate' && ini_set "$1" broker approval client; }
ini_get() { # ini_get FILE GROUP KEY
  awk -v g="[$2]" -v k="$3" '$0 == g { in_g = 1; next } /^\[/ { in_g = 0 }
    in_g && index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }' "$1"
}

audit_log() { echo "$HOME/.local/share/fabric-broker/audit.jsonl"; }
day_marker() { echo "${XDG_STATE_HOME:-$HOME/.local/state}/fabric-broker/audit-day"; }
# marker_follows: the day's marker (docs/audit.md) names the log's last record, seq and SHA-256.
marker_follows() {
  local head marker
  head=$(fabric-broker audit head 2>/dev/null || true)
  marker=$(node -e 'const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").trim());
    console.log(m.seq + ":" + m.sha256)' "$(day_marker)" 2>/dev/null || echo none)
  info "audit head $head, the day's marker $marker"
  [ -n "$head" ] && [ "$head" = "$marker" ]
}

user_phase_old() {
  echo "-- as $USER (HOME $HOME), fabric-broker $FB_UT_OLD_VERSION"
  check "fabric-broker --version says $FB_UT_OLD_VERSION" \
    test "$(fabric-broker --version 2>/dev/null)" = "fabric-broker $FB_UT_OLD_VERSION"
  start_keyring || return 0
  ok "gnome-keyring: the login keyring is unlocked on this session's bus"

  echo "-- keychain: the approval key (fabric-broker team key)"
  local rc=0
  fabric-broker team key >"$st/key.old" 2>"$st/key.old.err" || rc=$?
  check "team key exits 0" test "$rc" -eq 0
  check "team key made a new key in the keychain" contains "$st/key.old.err" 'made a new approval key in the keychain'
  awk '$1 == "fingerprint" { print $2 }' "$st/key.old" >"$st/fingerprint"
  awk '$1 == "public_key" { print $2 }' "$st/key.old" >"$st/public_key"
  check "team key prints a fingerprint ($(cat "$st/fingerprint"))" contains "$st/fingerprint" '^SHA256:'
  check "the login keyring is a file in the user's HOME" test -s "$HOME/.local/share/keyrings/login.keyring"

  echo "-- settings: the desktop app's QSettings file and the unit's environment file"
  start_xvfb || return 0
  local conf="$HOME/.config/fabric-broker/fabric-broker.conf"
  rc=0; run_desktop_app "$st/tools.default.json" || rc=$?
  check "desktop app (autostart's Exec) serves the socket before any setting: exit $rc" has_tool "$st/tools.default.json" fabric_list_ports
  check "...and, by default, no mutate tool (the control for the saved setting)" \
    test "$(js "$st/tools.default.json" "(o.steps[0].tools || []).includes('fabric_propose_change')")" = false
  mkdir -p "$(dirname "$conf")"
  check "toolsets and approval channel saved in $conf" ini_set_all "$conf"
  info "saved settings: $(tr '\n' ' ' <"$conf")"
  rc=0; run_desktop_app "$st/tools.saved.json" || rc=$?
  check "the desktop app applies the saved toolsets: it serves fabric_propose_change (exit $rc)" \
    has_tool "$st/tools.saved.json" fabric_propose_change
  check "the desktop app exits 0 on SIGTERM" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || indent "$st/desktop.log" | tail -n 20
  stop_pid "$xvfb_pid" || true; xvfb_pid=
  cp "$conf" "$st/settings.old.conf" # as the old version leaves it, after its own run
  install -m 600 /dev/null "$HOME/.config/fabric-broker/environment"
  printf 'EQUINIX_MCP_TOOLSETS=read,mutate\n' >"$HOME/.config/fabric-broker/environment"
  cp "$HOME/.config/fabric-broker/environment" "$st/environment.old"

  echo "-- the daily limit (the user's policy file) and proposals, a create, a declined confirm"
  write_user_policy
  local before=$failures
  fabric-broker policy show >"$st/policy.old" 2>&1 || true
  check "policy show names the daily limit USD 400" contains "$st/policy.old" 'max_monthly_recurring_per_day.*400'
  client "$st/old.json" stdio propose create decline
  check "propose: a confirm token" test "$(js "$st/old.json" 'o.steps[0].token')" = true
  check "create: executed, outcome created" \
    test "$(js "$st/old.json" 'o.steps[1].executed + "/" + o.steps[1].outcome')" = true/created
  check "create: the day had USD 0 used before it" \
    test "$(js "$st/old.json" 'o.steps[1].used')" = '{"amount":0,"currency":"USD"}'
  check "declined confirm: not executed, the person declined" \
    test "$(js "$st/old.json" 'o.steps[2].executed + "/" + o.steps[2].human')" = false/declined
  js "$st/old.json" 'o.steps[2].used' >"$st/used.old"
  check "the day's spend used after the create: USD 150 ($(cat "$st/used.old"))" \
    test "$(cat "$st/used.old")" = '{"amount":150,"currency":"USD"}'
  [ "$failures" -eq "$before" ] || dump "$st/old.json"

  echo "-- the team schema"
  local cur=fabric_team_cur v5=fabric_team_v5
  rc=0; fabric-broker team init "$(uri fb_owner $cur)" >"$st/init.old" 2>&1 || rc=$?
  check "team init (old version) creates the schema: $(head -c 200 "$st/init.old")" \
    test "$rc" -eq 0 -a -n "$(grep -E 'migrated from version 0 to [0-9]+' "$st/init.old")"
  check "fabric_proposers granted to carol, fabric_approvers to alice" \
    psql_as fb_super postgres <<<'GRANT fabric_proposers TO carol; GRANT fabric_approvers TO alice;'
  rc=0; team_status fb_owner $cur "$st/status.old" || rc=$?
  check "team status (old version) on it: version $FB_UT_SCHEMA" contains "$st/status.old" "version $FB_UT_SCHEMA \\(this fabric-broker knows $FB_UT_SCHEMA\\)"
  rc=0; make_v5_schema $v5 || rc=$?
  check "psql applied migrations 001..005 to $v5 (an older release's schema)" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || indent "$st/v5.log"
  team_status fb_owner $v5 "$st/status.v5.old" || true
  check "team status reads it as version 5" contains "$st/status.v5.old" 'version 5 \(this fabric-broker knows'

  echo "-- the audit trail, as the old version leaves it"
  rc=0; fabric-broker audit verify >"$st/verify.old" 2>&1 || rc=$?
  check "audit verify: exit 0, OK" test "$rc" -eq 0 -a -n "$(grep '^OK: ' "$st/verify.old")"
  indent "$st/verify.old"
  fabric-broker audit head >"$st/head.old" 2>/dev/null || true
  check "audit head: $(cat "$st/head.old")" contains "$st/head.old" '^[1-9][0-9]*:[0-9a-f]{64}$'
  cp "$(audit_log)" "$st/audit.old.jsonl"
  info "records by type: $(node -e 'const c = {}; for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) if (l) { const t = JSON.parse(l).type; c[t] = (c[t] || 0) + 1; } console.log(JSON.stringify(c))' "$(audit_log)")"
  check "the day's marker (outside the log's folder) names the log's last record" marker_follows
}

user_phase_new() {
  echo "-- as $USER, fabric-broker $FB_UT_NEW_VERSION"
  check "fabric-broker --version says $FB_UT_NEW_VERSION" \
    test "$(fabric-broker --version 2>/dev/null)" = "fabric-broker $FB_UT_NEW_VERSION"
  local old_head old_seq old_sha rc=0
  old_head=$(cat "$st/head.old" 2>/dev/null || true)
  old_seq=${old_head%%:*}; old_sha=${old_head#*:}

  echo "-- the audit trail across the upgrade"
  check "audit head before anything ran: still $old_head" test "$(fabric-broker audit head 2>/dev/null)" = "$old_head"
  rc=0; fabric-broker audit verify --head "$old_head" >"$st/verify.new0" 2>&1 || rc=$?
  check "audit verify --head OLD_HEAD (new version): exit 0, OK" test "$rc" -eq 0 -a -n "$(grep '^OK: ' "$st/verify.new0")"
  indent "$st/verify.new0"

  start_keyring || return 0
  echo "-- the keychain entry"
  rc=0; fabric-broker team key >"$st/key.new" 2>"$st/key.new.err" || rc=$?
  check "team key exits 0" test "$rc" -eq 0
  check "team key prints the same key ($(awk '$1 == "fingerprint" { print $2 }' "$st/key.new"))" \
    test "$(awk '$1 == "fingerprint" { print $2 }' "$st/key.new")" = "$(cat "$st/fingerprint")"
  check "...read from the keychain, not made anew" test ! -s "$st/key.new.err"

  echo "-- settings"
  local conf="$HOME/.config/fabric-broker/fabric-broker.conf"
  check "the QSettings file is as the old version left it" cmp -s "$conf" "$st/settings.old.conf"
  check "the unit's environment file is kept" cmp -s "$HOME/.config/fabric-broker/environment" "$st/environment.old"
  start_xvfb || return 0
  rc=0; run_desktop_app "$st/tools.new.json" || rc=$?
  check "the new desktop app (autostart's Exec) applies the saved toolsets: fabric_propose_change served" \
    has_tool "$st/tools.new.json" fabric_propose_change
  check "the new desktop app exits 0 on SIGTERM" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || indent "$st/desktop.log" | tail -n 20
  stop_pid "$xvfb_pid" || true; xvfb_pid=
  check "the saved settings are still there after it ran (toolsets, approval)" \
    test "$(ini_get "$conf" broker toolsets)/$(ini_get "$conf" broker approval)" = "read, mutate/client"

  echo "-- the day's spend (limit USD 400; USD 150 spent before the upgrade)"
  local before=$failures
  fabric-broker policy show >"$st/policy.new" 2>&1 || true
  check "policy show (new version) names the daily limit USD 400" contains "$st/policy.new" 'max_monthly_recurring_per_day.*400'
  client "$st/new.json" stdio create create
  check "a create after the upgrade: executed, outcome created" \
    test "$(js "$st/new.json" 'o.steps[0].executed + "/" + o.steps[0].outcome')" = true/created
  check "...and the day counted the old create: USD 150 used before it ($(js "$st/new.json" 'o.steps[0].used'))" \
    test "$(js "$st/new.json" 'o.steps[0].used')" = "$(cat "$st/used.old")"
  check "a second one (USD 450 > 400 only with the old create counted) is refused by the daily limit" \
    test "$(js "$st/new.json" 'o.steps[1].executed + "/" + o.steps[1].reason + "/" + o.steps[1].rule')" \
    = false/policy_denied/spend.max_monthly_recurring_per_day
  check "...saying USD 300.00 of USD 400.00 used ($(js "$st/new.json" 'o.steps[1].message' | head -c 160))" \
    contains <(js "$st/new.json" 'o.steps[1].message') 'USD 300\.00 of USD 400\.00'
  [ "$failures" -eq "$before" ] || dump "$st/new.json"

  echo "-- the audit chain continues from the old head"
  rc=0; fabric-broker audit verify --head "$old_head" >"$st/verify.new" 2>&1 || rc=$?
  check "audit verify --head OLD_HEAD after new records: exit 0, OK" test "$rc" -eq 0 -a -n "$(grep '^OK: ' "$st/verify.new")"
  check "...the old head is found in the log with records after it" contains "$st/verify.new" '^kept head: found: .*record\(s\) after it'
  indent "$st/verify.new"
  local new_head
  new_head=$(fabric-broker audit head 2>/dev/null || true)
  check "audit head moved on: $new_head" test "${new_head%%:*}" -gt "$old_seq"
  check "the log's first $(stat -c %s "$st/audit.old.jsonl") bytes are the old version's log, byte for byte" \
    cmp -s -n "$(stat -c %s "$st/audit.old.jsonl")" "$(audit_log)" "$st/audit.old.jsonl"
  local next
  next=$(node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n"))
      if (l) { const r = JSON.parse(l); if (r.seq === Number(process.argv[2]) + 1) { console.log(r.prev + " " + r.type); break; } }' \
    "$(audit_log)" "$old_seq" || true)
  check "record $((old_seq + 1)) (${next#* }, the new version's first) chains to the old head" \
    test "${next%% *}" = "$old_sha"
  check "no log_continued record (the log was never replaced or cut)" \
    test -z "$(grep '"type":"log_continued"' "$(audit_log)" || true)"

  echo "-- the systemd user unit"
  local unit=/usr/lib/systemd/user/fabric-broker.service
  rc=0; systemd-analyze --user verify --man=no "$unit" >"$st/sd.log" 2>&1 || rc=$?
  check "systemd-analyze --user verify accepts it (no findings)" test "$rc" -eq 0 -a ! -s "$st/sd.log"
  indent "$st/sd.log"
  local exec_start envs=()
  exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
  check "its ExecStart is $exec_start" test "$exec_start" = "/usr/bin/fabric-broker --headless --listen"
  # EnvironmentFile=-%h/.config/fabric-broker/environment, as systemd reads it (VAR=value lines).
  mapfile -t envs < <(grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$HOME/.config/fabric-broker/environment")
  rc=0
  # shellcheck disable=SC2086 # ExecStart is a command line
  serve_and_list "$st/unit.log" "$st/tools.unit.json" env -u DISPLAY "${envs[@]}" $exec_start || rc=$?
  check "ExecStart serves the socket with the environment file's toolsets (fabric_propose_change)" \
    has_tool "$st/tools.unit.json" fabric_propose_change
  check "...and exits 0 on SIGTERM (exit $rc)" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || indent "$st/unit.log" | tail -n 20

  echo "-- the team schema"
  local cur=fabric_team_cur v5=fabric_team_v5
  team_status fb_owner $cur "$st/status.new" || true
  check "team status (new version) on the old version's schema: current ($(grep -o 'version.*' "$st/status.new" | head -n1))" \
    contains "$st/status.new" "version $FB_UT_SCHEMA \\(this fabric-broker knows $FB_UT_SCHEMA\\)"
  rc=0; fabric-broker team init "$(uri fb_owner $cur)" >"$st/init.new" 2>&1 || rc=$?
  check "team init (new version) on it: nothing to do" test "$rc" -eq 0 -a -n "$(grep 'nothing to do' "$st/init.new")"
  rc=0; team_status fb_owner $v5 "$st/status.v5.new" || rc=$?
  info "team status on the version-5 schema (exit $rc): $(tr '\n' ' ' <"$st/status.v5.new")"
  check "team status (new version) says the schema is 5 and it knows $FB_UT_SCHEMA" \
    contains "$st/status.v5.new" "version 5 \\(this fabric-broker knows $FB_UT_SCHEMA\\)"
  FABRIC_BROKER_EXTRA_ADMIN_POLICY=$FB_UT_ADMIN_POLICY client "$st/team.v5.json" stdio team-propose
  check "in team mode on the version-5 schema the new app refuses the proposal: team_unavailable, no token" \
    test "$(js "$st/team.v5.json" 'o.steps[0].error_kind + "/" + o.steps[0].token')" = team_unavailable/false
  check "...with a clear message: $(js "$st/team.v5.json" 'o.steps[0].message' | head -c 220)" \
    contains <(js "$st/team.v5.json" 'o.steps[0].message') "schema is version 5; this fabric-broker needs $FB_UT_SCHEMA.*team init"
  check "...and says so on stderr too" contains <(js "$st/team.v5.json" 'o.stderr') "schema is version 5"
  rc=0; fabric-broker team init "$(uri fb_owner $v5)" >"$st/init.v5" 2>&1 || rc=$?
  check "team init (new version) migrates it: $(head -c 200 "$st/init.v5")" \
    test "$rc" -eq 0 -a -n "$(grep "migrated from version 5 to $FB_UT_SCHEMA" "$st/init.v5")"
  rc=0; team_status fb_owner $v5 "$st/status.v5.after" || rc=$?
  check "team status: version $FB_UT_SCHEMA, current (exit $rc)" \
    test "$rc" -eq 0 -a -n "$(grep "version $FB_UT_SCHEMA (this fabric-broker knows $FB_UT_SCHEMA)" "$st/status.v5.after")"
  FABRIC_BROKER_EXTRA_ADMIN_POLICY=$FB_UT_ADMIN_POLICY client "$st/team.v6.json" stdio team-propose
  check "team mode now takes the proposal: a token and a team proposal id ($(js "$st/team.v6.json" 'o.steps[0].team && o.steps[0].team.proposal_id'))" \
    test "$(js "$st/team.v6.json" 'o.steps[0].token + "/" + /^[0-9a-f-]{36}$/.test((o.steps[0].team || {}).proposal_id)')" = true/true
  [ "$(js "$st/team.v6.json" 'o.steps[0].token')" = true ] || dump "$st/team.v6.json"

  rc=0; fabric-broker audit verify --head "$old_head" >"$st/verify.end" 2>&1 || rc=$?
  check "audit verify --head OLD_HEAD at the end of the phase: exit 0" test "$rc" -eq 0
  check "the day's marker still names the log's last record (the new version keeps it)" marker_follows
  fabric-broker audit head >"$st/head.new" 2>/dev/null || true
}

# The unit's ExecStart inside the unit's view of the file system, as far as it matters for the
# records (the root side mounts it: HOME read-only, its ReadWritePaths writable, as
# ProtectHome=read-only with ReadWritePaths= gives it): the proposal it records must move the
# day's marker too, or deleting the log starts the day over for a user of the unit.
user_phase_unitview() {
  echo "-- as $USER: the unit's ExecStart with HOME read-only but its ReadWritePaths"
  local unit=/usr/lib/systemd/user/fabric-broker.service exec_start envs=() rc=0
  exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
  mapfile -t envs < <(grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$HOME/.config/fabric-broker/environment")
  check "HOME is read-only here (the emulation holds)" test ! -w "$HOME/.config"
  rc=0
  # shellcheck disable=SC2086 # ExecStart is a command line
  serve_steps=propose serve_and_list "$st/unitview.log" "$st/unitview.json" env -u DISPLAY "${envs[@]}" $exec_start || rc=$?
  check "a proposal through its socket gets a token (exit $rc)" test "$(js "$st/unitview.json" 'o.steps[0].token')" = true
  [ "$(js "$st/unitview.json" 'o.steps[0].token')" = true ] || dump "$st/unitview.json"
  check "the day's marker names the log's last record after it (the unit may write $(day_marker))" marker_follows
}

user_phase_after() {
  echo "-- as $USER, after the refused downgrade"
  check "fabric-broker --version still says $FB_UT_NEW_VERSION" \
    test "$(fabric-broker --version 2>/dev/null)" = "fabric-broker $FB_UT_NEW_VERSION"
  local rc=0
  fabric-broker audit verify --head "$(cat "$st/head.new")" >"$st/verify.after" 2>&1 || rc=$?
  check "audit verify --head (the head before the downgrade attempt): exit 0" test "$rc" -eq 0
  start_keyring || return 0
  fabric-broker team key >"$st/key.after" 2>/dev/null || true
  check "team key: the same key" \
    test "$(awk '$1 == "fingerprint" { print $2 }' "$st/key.after")" = "$(cat "$st/fingerprint")"
  client "$st/after.json" stdio tools
  check "it serves MCP (tools/list over --headless --stdio)" has_tool "$st/after.json" fabric_propose_change
}

user_main() {
  trap user_cleanup EXIT
  cd "$HOME"
  "user_phase_$1"
  user_cleanup
  trap - EXIT
  echo "$failures" >"$st/failures.$1"
  [ "$failures" -eq 0 ]
}

if [ "${1:-}" = __user ]; then
  user_main "$2"
  exit
fi

# ==========================================================================================
# The root side.
# ==========================================================================================

skip_or_fail() { # a prerequisite is missing: skipped locally when not root, a failure otherwise
  if [ "${CI:-}" != true ] && [ "$(id -u)" -ne 0 ]; then
    echo "test-upgrade: SKIPPED: $* (this test runs as root on a throwaway machine; CI runs it)"
    exit 0
  fi
  echo "test-upgrade: FAIL: $*" >&2
  exit 1
}

[ $# -eq 2 ] || { echo "usage: $0 OLD_DEB NEW_DEB" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || skip_or_fail "not root: it installs a package and adds a user"
src=$(cd "$(dirname "$0")/.." && pwd)
for f in "$1" "$2"; do [ -f "$f" ] || skip_or_fail "no such .deb: $f"; done
old_deb=$(readlink -f "$1"); new_deb=$(readlink -f "$2")
for tool in apt-get dpkg dpkg-deb reprepro gpg runuser useradd userdel dbus-run-session dbus-send \
  gnome-keyring-daemon Xvfb node psql systemd-analyze sha256sum; do
  command -v "$tool" >/dev/null || skip_or_fail "$tool is missing"
done
for tool in initdb pg_ctl; do [ -x "$PG_BINDIR/$tool" ] || skip_or_fail "$PG_BINDIR/$tool is missing (postgresql)"; done
[ -x "$src/packaging/apt-repo.sh" ] || [ -f "$src/packaging/apt-repo.sh" ] || skip_or_fail "packaging/apt-repo.sh is missing"
node_modules=$src/tests/e2e/node_modules
[ -f "$node_modules/@modelcontextprotocol/sdk/package.json" ] ||
  skip_or_fail "tests/e2e/node_modules has no @modelcontextprotocol/sdk (npm ci in tests/e2e)"
ls "$src"/resources/team/00[1-5]_*.sql >/dev/null 2>&1 || skip_or_fail "resources/team has no migrations"
if dpkg-query -W -f='${Status}' fabric-broker 2>/dev/null | grep -q 'installed'; then
  skip_or_fail "fabric-broker is installed on this machine; this test installs and purges it"
fi
if id "$FB_UT_USER" >/dev/null 2>&1; then skip_or_fail "the user $FB_UT_USER exists already"; fi
[ ! -e "$LIST_FILE" ] || skip_or_fail "$LIST_FILE exists (a previous run's leftover?)"

old_version=$(dpkg-deb -f "$old_deb" Version)
new_version=$(dpkg-deb -f "$new_deb" Version)
schema=$(find "$src/resources/team" -maxdepth 1 -name '[0-9][0-9][0-9]_*.sql' | wc -l)
echo "test-upgrade: $(basename "$old_deb") ($old_version) -> $(basename "$new_deb") ($new_version), as $FB_UT_USER"

tmp=$(mktemp -d /tmp/fb-upgrade.XXXXXX)
chmod 755 "$tmp"
home=/home/$FB_UT_USER
installed=0
pg_started=0
# A command as the test user, in a clean environment (no session bus).
as_user_cmd() { runuser -u "$FB_UT_USER" -- env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$home" "$@"; }
cleanup() {
  local rc=$?
  set +e
  phase_end
  echo "== cleanup"
  if [ "$pg_started" = 1 ]; then
    as_user_cmd "$PG_BINDIR/pg_ctl" -D "$tmp/pg/data" stop -m fast -w -t 60 >"$tmp/logs/pg-stop.log" 2>&1 ||
      { echo "        pg_ctl stop failed:"; indent "$tmp/logs/pg-stop.log"; }
  fi
  if id "$FB_UT_USER" >/dev/null 2>&1; then
    # Whatever the test user still runs was started by this test (a D-Bus-activated service).
    local left i
    # pg_ctl and dbus-run-session return while their processes are still exiting.
    for i in $(seq 1 50); do
      left=$(ps -u "$FB_UT_USER" -o pid= -o comm= 2>/dev/null)
      [ -n "$left" ] || break
      sleep 0.1
    done
    if [ -n "$left" ]; then
      echo "        processes of $FB_UT_USER left running, stopped now:"
      indent <<<"$left"
      local pid
      while read -r pid _; do kill -KILL "$pid" 2>/dev/null; done <<<"$left"
      sleep 0.5
    fi
  fi
  if [ "$installed" = 1 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get "${apt_lock[@]}" purge -y -q fabric-broker >"$tmp/purge.log" 2>&1 ||
      { echo "        apt-get purge fabric-broker failed:"; tail -n 20 "$tmp/purge.log" | indent; }
  fi
  rm -f "$LIST_FILE" /var/lib/apt/lists/*"_$(basename "$tmp")_"*
  id "$FB_UT_USER" >/dev/null 2>&1 && userdel -r "$FB_UT_USER" >/dev/null 2>&1
  rm -rf "$tmp"
  echo "   removed: the package, $LIST_FILE and its lists, the user $FB_UT_USER, $tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What the user's side needs, where that user can read it (the checkout may not be readable).
mkdir -p "$tmp/bin" "$tmp/debs/old" "$tmp/debs/new" "$tmp/migrations" "$tmp/admin" "$tmp/logs"
install -m 0755 "$0" "$tmp/bin/test-upgrade.sh"
install -m 0644 "$src/packaging/upgrade-client.mjs" "$tmp/bin/upgrade-client.mjs"
install -m 0644 "$src"/resources/team/[0-9][0-9][0-9]_*.sql "$tmp/migrations/"
install -m 0644 "$old_deb" "$tmp/debs/old/"
install -m 0644 "$new_deb" "$tmp/debs/new/"
old_copy=$tmp/debs/old/$(basename "$old_deb")
new_copy=$tmp/debs/new/$(basename "$new_deb")

phase "the user $FB_UT_USER, a private PostgreSQL"
useradd -m -s /bin/bash "$FB_UT_USER"
ok "useradd $FB_UT_USER (HOME $home)"
if runuser -u "$FB_UT_USER" -- test -r "$node_modules/@modelcontextprotocol/sdk/package.json"; then
  user_modules=$node_modules
else
  user_modules=$tmp/node_modules
  cp -al "$node_modules" "$user_modules" 2>/dev/null || cp -a "$node_modules" "$user_modules"
  info "tests/e2e/node_modules is not readable by $FB_UT_USER: copied to $user_modules"
fi
state=$tmp/state
install -d -m 0700 -o "$FB_UT_USER" -g "$FB_UT_USER" "$state" "$tmp/run" "$tmp/pg"
head -c 24 /dev/urandom | base64 >"$state/keyring-password"
chown "$FB_UT_USER:$FB_UT_USER" "$state/keyring-password"
chmod 0600 "$state/keyring-password"
pg_port=$((20000 + RANDOM % 40000))
if as_user_cmd "$PG_BINDIR/initdb" -D "$tmp/pg/data" -U fb_super --auth=trust --encoding=UTF8 \
  --locale=C --no-sync -N >"$tmp/logs/initdb.log" 2>&1 &&
  as_user_cmd "$PG_BINDIR/pg_ctl" -D "$tmp/pg/data" -l "$tmp/pg/server.log" \
    -o "-k $tmp/pg -c listen_addresses= -p $pg_port -c fsync=off" -w -t 60 start >"$tmp/logs/pg.log" 2>&1; then
  pg_started=1
  ok "PostgreSQL on $tmp/pg, port $pg_port"
else
  fail "PostgreSQL did not start"; indent "$tmp/logs/initdb.log" "$tmp/logs/pg.log"
fi
pg_uri="postgresql://fb_super@/postgres?host=$tmp/pg&port=$pg_port"
as_user_cmd psql -X -q -v ON_ERROR_STOP=1 -d "$pg_uri" >"$tmp/logs/roles.log" 2>&1 <<'SQL' ||
CREATE ROLE fb_owner LOGIN CREATEROLE;
CREATE ROLE carol LOGIN;
CREATE ROLE alice LOGIN;
CREATE DATABASE fabric_team_cur OWNER fb_owner ENCODING 'UTF8' TEMPLATE template0;
CREATE DATABASE fabric_team_v5 OWNER fb_owner ENCODING 'UTF8' TEMPLATE template0;
SQL
  { fail "roles and databases"; indent "$tmp/logs/roles.log"; }

# as_user PHASE: the user's side of a phase, in a D-Bus session of its own, in a clean environment.
# With user_wrap set (a command line), the whole of it runs under that command (as root).
user_wrap=()
as_user() {
  local rc=0
  "${user_wrap[@]}" runuser -u "$FB_UT_USER" -- env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$home" USER="$FB_UT_USER" \
    LOGNAME="$FB_UT_USER" SHELL=/bin/bash XDG_RUNTIME_DIR="$tmp/run" \
    FB_UT_STATE="$state" FB_UT_BIN="$tmp/bin" FB_E2E_NODE_MODULES="$user_modules" \
    FB_UT_MIGRATIONS="$tmp/migrations" FB_UT_PGHOST="$tmp/pg" FB_UT_PGPORT="$pg_port" \
    FB_UT_OLD_VERSION="$old_version" FB_UT_NEW_VERSION="$new_version" FB_UT_SCHEMA="$schema" \
    FB_UT_ADMIN_POLICY="$tmp/admin/policy.json" \
    dbus-run-session -- bash "$tmp/bin/test-upgrade.sh" __user "$1" || rc=$?
  local n
  n=$(cat "$state/failures.$1" 2>/dev/null || echo "?")
  if [ "$n" = "?" ]; then
    fail "the user's phase '$1' did not finish (exit $rc)"
  elif [ "$n" -gt 0 ]; then
    failures=$((failures + n))
  fi
}

apt_update() { # only the test's source; other lists are kept
  DEBIAN_FRONTEND=noninteractive apt-get "${apt_lock[@]}" update -q -o Dir::Etc::sourcelist="$LIST_FILE" \
    -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 >"$tmp/logs/update.log" 2>&1
}
status_of() { dpkg-query -W -f='${db:Status-Abbrev}${Version}' fabric-broker 2>/dev/null | tr -s ' '; }

phase "a signed repository with $old_version (packaging/apt-repo.sh), apt-get install"
repo=$tmp/repo
rc=0; bash "$src/packaging/apt-repo.sh" "$repo" "$old_copy" >"$tmp/logs/repo.old.log" 2>&1 || rc=$?
check "apt-repo.sh publishes $old_version" test "$rc" -eq 0
[ "$rc" -eq 0 ] || indent "$tmp/logs/repo.old.log"
keyring=$repo/public/fabric-broker-archive-keyring.gpg
check "the repository is signed (InRelease, Release.gpg) and has its keyring" \
  test -s "$repo/public/dists/stable/InRelease" -a -s "$repo/public/dists/stable/Release.gpg" -a -s "$keyring"
echo "deb [signed-by=$keyring] file:$repo/public stable main" >"$LIST_FILE"
info "$LIST_FILE: $(cat "$LIST_FILE")"
rc=0; apt_update || rc=$?
check "apt-get update of that source: exit 0, no warning or error" \
  test "$rc" -eq 0 -a -z "$(grep -E '^(W|E):' "$tmp/logs/update.log" || true)"
[ "$rc" -eq 0 ] || indent "$tmp/logs/update.log"
installed=1
rc=0; DEBIAN_FRONTEND=noninteractive apt-get "${apt_lock[@]}" install -y -q "fabric-broker=$old_version" >"$tmp/logs/install.old.log" 2>&1 || rc=$?
check "apt-get install fabric-broker=$old_version: exit 0" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -n 30 "$tmp/logs/install.old.log" | indent
check "dpkg: ii $old_version" test "$(status_of)" = "ii $old_version"
apt-cache policy fabric-broker >"$tmp/logs/policy.old.log" 2>&1
check "apt-cache policy: installed from file:$repo/public stable/main" \
  grep -qF "file:$repo/public stable/main" "$tmp/logs/policy.old.log"

phase "use $old_version (as $FB_UT_USER)"
as_user old

phase "upgrade: $new_version into the repository, apt-get update, apt-get install"
check "the new version is newer ($new_version > $old_version)" dpkg --compare-versions "$new_version" gt "$old_version"
rc=0; bash "$src/packaging/apt-repo.sh" "$repo" "$new_copy" >"$tmp/logs/repo.new.log" 2>&1 || rc=$?
check "apt-repo.sh publishes $new_version" test "$rc" -eq 0
[ "$rc" -eq 0 ] || indent "$tmp/logs/repo.new.log"
rc=0; apt_update || rc=$?
check "apt-get update: exit 0, no warning or error" \
  test "$rc" -eq 0 -a -z "$(grep -E '^(W|E):' "$tmp/logs/update.log" || true)"
apt-get -s upgrade >"$tmp/logs/simulate.log" 2>&1 || true
check "apt-get -s upgrade would upgrade it: $(grep '^Inst fabric-broker' "$tmp/logs/simulate.log" || echo none)" \
  grep -q "^Inst fabric-broker \[$old_version\] ($new_version " "$tmp/logs/simulate.log"
rc=0; DEBIAN_FRONTEND=noninteractive apt-get "${apt_lock[@]}" install -y -q fabric-broker >"$tmp/logs/install.new.log" 2>&1 || rc=$?
check "apt-get install fabric-broker: exit 0" test "$rc" -eq 0
grep -E 'upgraded|Unpacking fabric-broker' "$tmp/logs/install.new.log" | indent || true
[ "$rc" -eq 0 ] || tail -n 30 "$tmp/logs/install.new.log" | indent
check "dpkg: ii $new_version" test "$(status_of)" = "ii $new_version"
dpkg --verify fabric-broker >"$tmp/logs/verify.new.log" 2>&1 || true
check "dpkg --verify fabric-broker: every file as packaged" test ! -s "$tmp/logs/verify.new.log"
indent "$tmp/logs/verify.new.log"
autostart=$(dpkg -L fabric-broker | grep '^/etc/xdg/autostart/.*\.desktop$' || true)
check "the autostart entry is installed: ${autostart:-none}" test -n "$autostart" -a -f "$autostart"
if [ -n "$autostart" ]; then
  conffile_md5=$(dpkg-query -W -f='${Conffiles}\n' fabric-broker | awk -v f="$autostart" '$1 == f { print $2 }')
  check "...as a conffile, unchanged (md5 $conffile_md5)" test "$(md5sum <"$autostart" | awk '{ print $1 }')" = "$conffile_md5"
  if command -v desktop-file-validate >/dev/null; then
    check "...desktop-file-validate accepts it" test -z "$(desktop-file-validate "$autostart" 2>&1)"
  fi
fi
check "the systemd user unit is installed: /usr/lib/systemd/user/fabric-broker.service" \
  test -f /usr/lib/systemd/user/fabric-broker.service
# The administrator's policy for team mode against the version-5 schema, held to the loader's
# rules (root-owned, in a folder only root writes); the approval key is the user's (team key).
fp=$(cat "$state/fingerprint" 2>/dev/null || true)
pk=$(cat "$state/public_key" 2>/dev/null || true)
team_uri="postgresql://carol@/fabric_team_v5?host=$tmp/pg&port=$pg_port"
printf '{"team": {"database": "%s", "approver_keys": [{"role": "alice", "fingerprint": "%s", "public_key": "%s"}]}}\n' \
  "$team_uri" "$fp" "$pk" >"$tmp/admin/policy.json"
chmod 0644 "$tmp/admin/policy.json"

phase "use $new_version (as $FB_UT_USER)"
as_user new

phase "the unit's ExecStart in the unit's file-system view (as $FB_UT_USER)"
# systemd gives the unit HOME read-only (ProtectHome=read-only) except its ReadWritePaths (%h,
# %t expanded; a missing path fails the start unless it has a '-' prefix). No user manager runs
# here, so a private mount namespace gives the same view of HOME; the rest of the sandboxing
# (ProtectSystem, PrivateTmp, ...) does not touch the records and is not emulated.
unit_file=/usr/lib/systemd/user/fabric-broker.service
rw_paths=()
rw_ok=1
read -ra rw_words <<<"$(sed -n 's/^ReadWritePaths=//p' "$unit_file" | tr '\n' ' ')"
for p in "${rw_words[@]}"; do
  optional=0
  [ "${p#-}" = "$p" ] || { optional=1; p=${p#-}; }
  p=${p//%h/$home}; p=${p//%t/$tmp/run}
  if [ -e "$p" ]; then rw_paths+=("$p")
  elif [ "$optional" = 0 ]; then rw_ok=0; fail "ReadWritePaths names $p, which does not exist: systemd would not start the unit"
  fi
done
info "ReadWritePaths: ${rw_paths[*]}"
if [ "$rw_ok" = 1 ] && command -v unshare >/dev/null; then
  # shellcheck disable=SC2016 # the script of the namespace's shell
  user_wrap=(unshare -m --propagation private bash -c 'set -e; home=$1; n=$2; shift 2
    mount --bind "$home" "$home"; mount -o remount,bind,ro "$home"
    for p in "${@:1:$n}"; do mount --bind "$p" "$p"; mount -o remount,bind,rw "$p"; done
    shift "$n"; exec "$@"' unitview "$home" "${#rw_paths[@]}" "${rw_paths[@]}")
  as_user unitview
  user_wrap=()
elif [ "$rw_ok" = 1 ]; then
  fail "unshare (util-linux) is missing: the unit's view of HOME cannot be made"
fi

phase "downgrade to $old_version: refused"
for how in apt dpkg; do
  rc=0
  if [ "$how" = apt ]; then
    env -u FABRIC_BROKER_ALLOW_DOWNGRADE DEBIAN_FRONTEND=noninteractive \
      apt-get "${apt_lock[@]}" install -y -q --allow-downgrades "$old_copy" >"$tmp/logs/downgrade.$how.log" 2>&1 || rc=$?
    what="apt-get install --allow-downgrades $(basename "$old_copy")"
  else
    env -u FABRIC_BROKER_ALLOW_DOWNGRADE dpkg -i "$old_copy" >"$tmp/logs/downgrade.$how.log" 2>&1 || rc=$?
    what="dpkg -i $(basename "$old_copy")"
  fi
  check "$what fails (exit $rc)" test "$rc" -ne 0
  check "...saying it refuses and what cannot be kept" \
    eval 'grep -q "refusing to downgrade from $new_version to $old_version" "$tmp/logs/downgrade.$how.log" &&
      grep -q "local/share/fabric-broker/ and" "$tmp/logs/downgrade.$how.log" &&
      grep -q "the settings of $new_version" "$tmp/logs/downgrade.$how.log" &&
      grep -q "FABRIC_BROKER_ALLOW_DOWNGRADE=1 apt-get install --allow-downgrades fabric-broker=$old_version" "$tmp/logs/downgrade.$how.log"'
  grep -E 'fabric-broker:|  - |dpkg: (error|warning)|^E:' "$tmp/logs/downgrade.$how.log" | head -n 20 | indent || true
  check "...and $new_version is still installed: $(status_of)" test "$(status_of)" = "ii $new_version"
  dpkg --verify fabric-broker >"$tmp/logs/verify.$how.log" 2>&1 || true
  check "...with every file as packaged (dpkg --verify)" test ! -s "$tmp/logs/verify.$how.log"
done
rc=0; DEBIAN_FRONTEND=noninteractive apt-get "${apt_lock[@]}" check >"$tmp/logs/check.log" 2>&1 || rc=$?
check "apt-get check: no broken dependencies left behind" test "$rc" -eq 0

phase "after the refused downgrade (as $FB_UT_USER)"
as_user after
phase_end

echo "== phase times"
for i in "${!phase_names[@]}"; do printf '   %7ss  %s\n' "${phase_times[$i]}" "${phase_names[$i]}"; done
if [ "$failures" -eq 0 ]; then
  echo "test-upgrade: every check passed ($old_version -> $new_version)"
else
  echo "test-upgrade: $failures check(s) FAILED"
  exit 1
fi
