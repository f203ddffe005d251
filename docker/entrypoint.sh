#!/bin/sh
# The auto-fix image's entry point: checks what the role needs, says precisely what is missing, then
# runs it (exec, so that SIGTERM reaches node directly; tini is PID 1 and reaps orphans).
#
#   server   (default) the GitHub App: webhooks, /health, /metrics; runs the jobs itself unless REDIS_URL
#            is set (then it only stores them and `worker` containers run them)
#   worker   takes jobs from Redis (`auto-fix worker`); /health and /metrics on AUTO_FIX_OPS_PORT (9464)
#   health   asks this container's /health (the image's HEALTHCHECK); AUTO_FIX_HEALTH_URL overrides
#   check    runs the checks of the role named next (default server) and exits
#   other    runs as a command, e.g. `auto-fix fix --repo /work/repo --issue /work/bug.md`
#
# Exit code 78 (EX_CONFIG) means a setting or a container option is wrong: restarting will not help.
set -eu

APP_DIR=${AUTO_FIX_APP_DIR:-$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)}
role=${1:-server}
[ $# -gt 0 ] && shift

say() { printf 'auto-fix entrypoint: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 78
}

# A folder this user must be able to write (a volume mounted there, owned by this uid).
writable_dir() {
  if ! mkdir -p -- "$2" 2>/dev/null || [ ! -w "$2" ]; then
    die "$1=$2 is not writable by uid $(id -u): mount a volume there owned by $(id -u):$(id -g)"
  fi
}

check_credentials() {
  [ -n "${APP_ID:-}" ] || die "APP_ID is not set: register the app first (docs/deploying.md) and pass APP_ID, WEBHOOK_SECRET and PRIVATE_KEY_PATH (a secret file)"
  if [ -n "${PRIVATE_KEY_PATH:-}" ]; then
    [ -r "$PRIVATE_KEY_PATH" ] || die "PRIVATE_KEY_PATH=$PRIVATE_KEY_PATH is not readable by uid $(id -u)"
  elif [ -z "${PRIVATE_KEY:-}" ]; then
    die "neither PRIVATE_KEY_PATH nor PRIVATE_KEY is set: the app cannot authenticate to GitHub"
  fi
}

# bubblewrap must be able to make its namespaces here; in a container that takes the options below.
# The check runs `true` through the sandbox exactly as a run would (same bwrap arguments).
check_sandbox() {
  case ${AUTO_FIX_SANDBOX:-auto} in none | docker) return 0 ;; esac
  command -v bwrap >/dev/null 2>&1 || die "bubblewrap (bwrap) is not installed: the sandbox cannot run"
  probe=$(mktemp -d)
  if ! out=$(node "$APP_DIR/bin/auto-fix.js" sandbox "$probe" -- true 2>&1); then
    rm -rf "$probe"
    die "bubblewrap cannot make a sandbox in this container:
$(printf '%s\n' "$out" | grep -v '^auto-fix sandbox: note:' | sed 's/^/    /')
  It needs these container options (compose.yaml has them; docs/deploying.md says why):
    security_opt: seccomp=unconfined      the default seccomp profiles refuse sethostname() (and Docker's
                                          unshare(CLONE_NEWUSER) and mount()) to a container without CAP_SYS_ADMIN
    security_opt: apparmor=unconfined     the docker-default AppArmor profile refuses mount()
    security_opt: systempaths=unconfined  a /proc with masked paths cannot be mounted in a user namespace
                                          (podman: the same, or --security-opt unmask=ALL)
  and a host with user namespaces enabled (user.max_user_namespaces > 0; on Ubuntu 24.04 also
  kernel.apparmor_restrict_unprivileged_userns=0)."
  fi
  rm -rf "$probe"
}

check_redis_url() {
  case ${REDIS_URL:-} in
    redis://* | rediss://*) ;;
    '') die "a worker needs REDIS_URL (the queue it shares with the app), e.g. redis://redis:6379/0" ;;
    *) die "REDIS_URL must start with redis:// or rediss:// (got '$REDIS_URL')" ;;
  esac
}

check_role() {
  case $1 in
    server)
      if [ "${NODE_ENV:-}" = production ]; then
        check_credentials
        [ -n "${WEBHOOK_SECRET:-}" ] || die "WEBHOOK_SECRET is not set: deliveries could not be verified"
      fi
      if [ -n "${REDIS_URL:-}" ]; then
        check_redis_url
      else
        # The embedded store: this container runs the jobs.
        writable_dir AUTO_FIX_DATA_DIR "${AUTO_FIX_DATA_DIR:-/data/jobs}"
        writable_dir AUTO_FIX_WORK_DIR "${AUTO_FIX_WORK_DIR:-/data/work}"
        writable_dir AUTO_FIX_CACHE_DIR "${AUTO_FIX_CACHE_DIR:-/cache/index}"
        check_sandbox
      fi
      ;;
    worker)
      check_credentials
      check_redis_url
      writable_dir AUTO_FIX_WORK_DIR "${AUTO_FIX_WORK_DIR:-/data/work}"
      writable_dir AUTO_FIX_CACHE_DIR "${AUTO_FIX_CACHE_DIR:-/cache/index}"
      check_sandbox
      ;;
    *) die "unknown role '$1' (server or worker)" ;;
  esac
}

case $role in
  server)
    check_role server
    cd "$APP_DIR"
    exec node src/app/start.ts "$@"
    ;;
  worker)
    check_role worker
    cd "$APP_DIR"
    exec node bin/auto-fix.js worker --host "${AUTO_FIX_OPS_HOST:-0.0.0.0}" --port "${AUTO_FIX_OPS_PORT:-9464}" "$@"
    ;;
  health)
    url=${AUTO_FIX_HEALTH_URL:-http://127.0.0.1:${PORT:-3000}/health}
    exec node -e '
      fetch(process.argv[1], { signal: AbortSignal.timeout(4000) }).then(
        async (r) => { process.stdout.write(await r.text()); process.exit(r.ok ? 0 : 1); },
        (e) => { process.stderr.write(`health: ${e.message}\n`); process.exit(1); },
      );' "$url"
    ;;
  check)
    check_role "${1:-server}"
    say "${1:-server}: ready"
    ;;
  auto-fix)
    exec node "$APP_DIR/bin/auto-fix.js" "$@"
    ;;
  *)
    exec "$role" "$@"
    ;;
esac
