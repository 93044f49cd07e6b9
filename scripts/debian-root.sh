#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A minimal Debian 12 root, as bare as a fresh machine, and a way to run
# commands in it:
#
#   bash scripts/debian-root.sh DIR              # make DIR (or reuse it)
#   bash scripts/debian-root.sh DIR -- CMD ARG.. # ...then run CMD in it as root
#
# DIR is made with `debootstrap --variant=minbase bookworm DIR MIRROR`, MIRROR
# being the Debian archive this machine's own apt sources name; the machine's
# apt sources, the keyrings they sign with and its Acquire settings (proxy,
# Check-Valid-Until, ...) are copied in, so that apt in the root reaches the
# same archive the same way.  No package lists are fetched: like a fresh
# container, the root's apt knows no packages until `apt-get update`.
# A finished root carries the stamp file DIR/.opengpa-debian-root and is
# reused as it is; a DIR without the stamp (an interrupted debootstrap) is
# removed and made again.  Installs debootstrap on this machine if missing.
#
# CMD runs through chroot(8) in a private mount namespace (unshare(1)) with
# /proc, /sys, /dev and /dev/pts mounted: the mounts die with the command,
# whatever way it ends, and this machine never sees them.  Where unshare
# cannot make a mount namespace, the mounts are made here and a trap
# unmounts them on every exit.  CMD gets a clean environment (HOME=/root, a
# standard PATH, LANG=C.UTF-8) plus CI and any *_proxy variables set here.
# The exit status is CMD's.  Needs root.
set -euo pipefail

say() { echo "debian-root: $*" >&2; }
die() { say "$*"; exit 1; }

[ $# -ge 1 ] && [ "$1" != -- ] ||
  die "usage: $0 DIR [-- CMD [ARG...]]"
dir=$1
shift
run=()
if [ $# -gt 0 ]; then
  [ "$1" = -- ] || die "usage: $0 DIR [-- CMD [ARG...]] (got '$1' after DIR)"
  shift
  [ $# -gt 0 ] || die "nothing to run after --"
  run=("$@")
fi
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mounts); run it with sudo"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
[ "$dir" != / ] || die "DIR must not be /"
stamp=$dir/.opengpa-debian-root

# Mount points under DIR as this mount namespace sees them (octal escapes
# of /proc/self/mounts decoded).
mounts_under() {
  awk -v d="$dir" '{ m = $2; gsub(/\\040/, " ", m); gsub(/\\011/, "\t", m)
                     if (m == d || index(m, d "/") == 1) print m }' /proc/self/mounts
}
# Deepest first: a mount inside another goes before it.
unmount_under() {
  local m
  while IFS= read -r m; do
    [ -n "$m" ] || continue
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
      say "could not unmount $m"
  done < <(mounts_under | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2-)
}

# The Debian archive this machine installs from: the first deb entry for
# bookworm in its sources (deb822 .sources first, then one-line .list).
host_mirror() {
  local f m
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    m=$(awk '
      function flush() { if (deb && suite && !off && uri != "" && !found) { print uri; found = 1 }
                         deb = 0; suite = 0; off = 0; uri = "" }
      /^[[:space:]]*$/ { flush(); next }
      /^#/ { next }
      tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
      END { flush() }' "$f")
    [ -n "$m" ] && { echo "$m"; return 0; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    m=$(sed -n -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+bookworm[[:space:]].*/\2/p' "$f")
    [ -n "$m" ] && { echo "${m%%$'\n'*}"; return 0; }
  done
  return 1
}

# apt's settings that decide how the archive is reached, as this machine
# has them (apt-config dump lines: proxies, TLS, date checks, retries).
host_acquire_conf() {
  apt-config dump 2>/dev/null | grep -E \
    '^Acquire::((https?|ftp|socks)::|Check-Valid-Until |Check-Date |Retries |AllowInsecureRepositories |AllowWeakRepositories |ForceIPv4 |ForceIPv6 )' || true
}

make_root() {
  if [ -f "$stamp" ]; then
    return 0
  fi
  # An unfinished root: nothing may be mounted in it before it goes.
  if [ -n "$(mounts_under)" ]; then
    unmount_under
    [ -z "$(mounts_under)" ] || die "$dir has mounts that would not unmount: $(mounts_under | tr '\n' ' ')"
  fi
  if [ -n "$(ls -A "$dir")" ]; then
    say "$dir holds no finished root (no $stamp): removing it and starting again"
    rm -rf --one-file-system "${dir:?}"
    mkdir -p "$dir"
  fi

  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap on this machine"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y \
      --no-install-recommends debootstrap ||
    { apt-get -o DPkg::Lock::Timeout=900 update || true
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y \
        --no-install-recommends debootstrap; } ||
      die "could not install debootstrap: apt-get install debootstrap, then run this again"
  fi

  local mirror
  if ! mirror=$(host_mirror); then
    mirror=http://deb.debian.org/debian
    say "no bookworm deb entry in this machine's apt sources: using $mirror"
  fi
  # debootstrap fetches with wget, which reads the *_proxy variables: give it
  # apt's proxy when the environment has none.
  local proxy
  proxy=$(apt-config dump 2>/dev/null | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p' | head -n1)
  if [ -n "$proxy" ] && [ "$proxy" != DIRECT ] && [ -z "${http_proxy:-}" ]; then
    export http_proxy=$proxy
  fi

  local start=$SECONDS
  say "debootstrap --variant=minbase bookworm $dir $mirror"
  if ! debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1; then
    tail -n 30 "$dir.debootstrap.log" >&2
    [ -f "$dir/debootstrap/debootstrap.log" ] && tail -n 30 "$dir/debootstrap/debootstrap.log" >&2
    die "debootstrap failed (whole log: $dir.debootstrap.log); is $mirror reachable?"
  fi
  rm -f "$dir.debootstrap.log"

  # The machine's apt sources and the keyrings they name, instead of
  # debootstrap's one-line sources.list.
  rm -f "$dir/etc/apt/sources.list"
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && cp "$f" "$dir$f"
  done
  for f in /etc/apt/trusted.gpg.d/* /etc/apt/keyrings/* /usr/share/keyrings/*; do
    [ -f "$f" ] && [ ! -e "$dir$f" ] && { mkdir -p "$dir${f%/*}"; cp "$f" "$dir$f"; }
  done
  host_acquire_conf >"$dir/etc/apt/apt.conf.d/00opengpa-host-acquire"
  # A chroot starts no services (packages' maintainer scripts ask this).
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 755 "$dir/usr/sbin/policy-rc.d"
  printf 'mirror=%s\nmade=%s\n' "$mirror" "$(date -u +%FT%TZ)" >"$stamp"
  say "made $dir in $((SECONDS - start)) s"
}

make_root
[ ${#run[@]} -gt 0 ] || exit 0

# Name resolution as this machine has it.
cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true

envs=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
      LANG=C.UTF-8 TERM="${TERM:-dumb}")
for v in CI http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [ -n "${!v:-}" ] && envs+=("$v=${!v}")
done

# The mounts, made inside whichever namespace runs this function.
mount_all() {
  mount -t proc proc "$dir/proc"
  mount --rbind /sys "$dir/sys"
  mount --make-rslave "$dir/sys"
  mount --rbind /dev "$dir/dev"
  mount --make-rslave "$dir/dev"
  # /dev/pts comes with /dev where it is a mount of its own; else, its own.
  if ! mountpoint -q "$dir/dev/pts"; then
    mkdir -p "$dir/dev/pts"
    mount --bind /dev/pts "$dir/dev/pts"
  fi
}

if unshare --mount --propagation private true 2>/dev/null; then
  export -f mount_all
  export dir
  exec unshare --mount --propagation private -- bash -euo pipefail -c \
    'mount_all; exec chroot "$dir" env -i "$@"' bash "${envs[@]}" "${run[@]}"
fi

say "unshare cannot make a mount namespace here: mounting in this one, unmounted on exit"
# CMD runs in the background so that a signal reaches the traps at once:
# CMD and all it started (its own session) are stopped first, then
# everything under DIR unmounted.
child=
cleanup() {
  if [ -n "$child" ]; then
    kill -TERM -- "-$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  unmount_under
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
mount_all
setsid chroot "$dir" env -i "${envs[@]}" "${run[@]}" &
child=$!
status=0
wait "$child" || status=$?
child=
exit "$status"
