# Chroot helpers of the packaging tests (test-apt-releases.sh, test-apt-attacks.sh), sourced.
# The caller defines: tmp (scratch folder), cache (base tarballs), mirror (Debian archive),
# indent, now and since.
# shellcheck shell=bash disable=SC2154 # tmp, cache, mirror: the caller's

# run_ns ROOT COMMAND...: COMMAND (a host command) in a new mount and PID namespace in which
# ROOT has /proc, /dev, a fresh /tmp and, when FB_NS_ARCHIVES names a folder, that folder as
# /var/cache/apt/archives. The mounts are undone on exit; the namespace's processes die with it.
run_ns() {
  local root=$1; shift
  # shellcheck disable=SC2016 # the script is expanded by the inner shell
  unshare --mount --propagation private --pid --kill-child -- bash -c '
    set -eu
    r=$1; shift
    trap "umount -R -l \"\$r/var/cache/apt/archives\" \"\$r/tmp\" \"\$r/dev\" \"\$r/proc\" 2>/dev/null || true" EXIT
    mount -t proc proc "$r/proc"
    mount --rbind /dev "$r/dev"
    mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/tmp"
    if [ -n "${FB_NS_ARCHIVES:-}" ]; then
      mount --bind "$FB_NS_ARCHIVES" "$r/var/cache/apt/archives"
    fi
    status=0
    "$@" || status=$?
    exit "$status"' run_ns "$root" "$@"
}
# in_chroot ROOT COMMAND...: COMMAND as root inside the chroot, with a clean environment.
in_chroot() {
  local root=$1; shift
  run_ns "$root" chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# Base tarball of SUITE: from the cache when younger than 7 days, else built now.
base_tarball() {
  local suite=$1 tarball="$cache/chroot-$1.tar" t log
  if [ -s "$tarball" ] && [ -n "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
    echo "  ok    $suite base: cached $(basename "$tarball") ($(date -r "$tarball" -u '+%F %R UTC'), $(du -h "$tarball" | cut -f1))" >&2
  else
    t=$(now)
    log="$tmp/mmdebstrap-$suite.log"
    mkdir -p "$cache"
    rm -f "$cache/.chroot-$suite".*.tar
    # Keep apt's lists (the test's apt-get update then only refreshes them).
    if mmdebstrap --variant=minbase --format=tar --skip=cleanup/apt/lists "$suite" \
      "$cache/.chroot-$suite.$$.tar" "$mirror" >"$log" 2>&1; then
      mv -f "$cache/.chroot-$suite.$$.tar" "$tarball"
      echo "  ok    $suite base: mmdebstrap --variant=minbase $suite from $mirror ($(du -h "$tarball" | cut -f1), $(since "$t") s)" >&2
    else
      rm -f "$cache/.chroot-$suite.$$.tar"
      echo "  FAIL  $suite base: mmdebstrap failed" >&2
      tail -n 30 "$log" | indent >&2
      return 1
    fi
  fi
  echo "$tarball"
}
