#!/usr/bin/env bash
# Builds the image with scripts/build-image.sh (no image registry needed) and checks it the way
# compose.yaml runs it, with Podman or Docker, on this machine only (loopback; GitHub and the model are
# given unreachable loopback addresses, nothing leaves it):
#   1. without the sandbox options, the entry point refuses with exit 78 and names the options;
#   2. with them, as the image's unprivileged user, a command runs in bubblewrap (hostname, uid,
#      read-only system, no network);
#   3. the app (embedded store, volumes on host folders) answers /health with the sandbox working and no
#      problem but the unreachable GitHub and model it was given, answers a signed webhook and holds the
#      delivery on the volume (GitHub cannot be asked who sent it); SIGTERM: it exits 0 within the grace;
#   4. a worker against a Redis on the host answers /health (Redis reached, sandbox working) and stops
#      cleanly on SIGTERM.
#
# ENGINE=podman|docker (default docker when its daemon answers, else podman), IMAGE (default auto-fix:smoke),
# SKIP_BUILD=1 to reuse IMAGE, ENGINE_RUN_FLAGS for the engine's own needs (default with podman: this
# shell's open-file limit and 4096 processes, which rootful podman may not raise past). Needs root (the build),
# redis-server and node on the host. Not part of `npm test`: the build alone takes minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${ENGINE:-}" ]; then
  if docker info >/dev/null 2>&1; then ENGINE=docker; else ENGINE=podman; fi
fi
IMAGE=${IMAGE:-auto-fix:smoke}
if [ -z "${ENGINE_RUN_FLAGS+x}" ] && [ "${ENGINE%% *}" = podman ]; then
  ENGINE_RUN_FLAGS="--ulimit nofile=$(ulimit -Hn):$(ulimit -Hn) --ulimit nproc=4096:4096 --no-healthcheck"
fi
read -r -a RUN_FLAGS <<<"${ENGINE_RUN_FLAGS:-}"
SANDBOX=(--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined)
TMP=$(mktemp -d)
CONTAINERS=()
REDIS_PID=""
cleanup() {
  for c in "${CONTAINERS[@]}"; do $ENGINE rm -f "$c" >/dev/null 2>&1 || true; done
  if [ -n "$REDIS_PID" ]; then kill "$REDIS_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }
fail() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
run() { $ENGINE run --rm "${RUN_FLAGS[@]}" "$@"; }

if [ "${SKIP_BUILD:-}" != 1 ]; then
  step "build $IMAGE (scripts/build-image.sh)"
  ENGINE=${ENGINE%% *} bash scripts/build-image.sh --tag "$IMAGE" | sed 's/^/   /'
  [ "${PIPESTATUS[0]}" = 0 ] || fail "build"
fi

step "1. the entry point refuses a container without the sandbox options"
set +e
out=$(run -e APP_ID=1 -e PRIVATE_KEY=x -e REDIS_URL=redis://127.0.0.1:1 "$IMAGE" check worker 2>&1)
code=$?
set -e
echo "$out" | grep -v '^time=' | sed 's/^/   /'
[ "$code" = 78 ] || fail "expected exit 78, got $code"
echo "$out" | grep -q 'systempaths=unconfined' || fail "the message does not name the options"

step "2. with them, a command runs in bubblewrap as the image's user"
run "${SANDBOX[@]}" --entrypoint sh "$IMAGE" -c '
  set -e; mkdir -p /tmp/repo; printf "def add(a, b):\n    return a - b\n" > /tmp/repo/calc.py
  echo "container user: $(id -u)"
  /app/docker/entrypoint.sh auto-fix sandbox /tmp/repo -- python3 -c "
import calc, os, socket
print(\"in the sandbox: uid\", os.getuid(), \"hostname\", socket.gethostname(), \"add(1, 2) =\", calc.add(1, 2))
print(\"interfaces:\", sorted(l.split(\":\")[0].strip() for l in open(\"/proc/net/dev\").readlines()[2:]))
try:
    open(\"/etc/probe\", \"w\")
except OSError as e:
    print(\"writing /etc:\", e.strerror)
"' 2>&1 | grep -v '^time=' | tee "$TMP/sandbox.out" | sed 's/^/   /'
grep -q "uid 1000 hostname sandbox add(1, 2) = -1" "$TMP/sandbox.out" || fail "sandboxed command"
grep -q "interfaces: \['lo'\]" "$TMP/sandbox.out" || fail "network namespace"
grep -q "writing /etc: Read-only file system" "$TMP/sandbox.out" || fail "read-only system"

KEY="$TMP/key.pem"
node -e 'process.stdout.write(require("crypto").generateKeyPairSync("rsa",{modulusLength:2048}).privateKey.export({type:"pkcs1",format:"pem"}))' >"$KEY"
chmod 0444 "$KEY"
DEAD=$(free_port) # nothing listens there: GitHub and the model are unreachable, on loopback
COMMON=(--network host -v "$KEY:/run/secrets/github-app-key:ro" -e APP_ID=7 -e PRIVATE_KEY_PATH=/run/secrets/github-app-key
  -e WEBHOOK_SECRET=smoke-secret -e GHE_HOST="127.0.0.1:$DEAD" -e GHE_PROTOCOL=http
  -e AUTO_FIX_PUBLIC_URL=https://autofix.example.com -e OPENAI_BASE_URL="http://127.0.0.1:$DEAD/v1"
  -e AUTO_FIX_MODEL=smoke-model -e AUTO_FIX_PRICE_INPUT_PER_MTOK=0 -e AUTO_FIX_PRICE_OUTPUT_PER_MTOK=0
  -e AUTO_FIX_SHUTDOWN_GRACE_SECONDS=30)

# /health answers 503 here, and must: GitHub and the model were given addresses nothing listens on.
# Waits for an answer, then checks that those two are its only problems and that `$2` holds (a node
# expression over the report `h`), e.g. that the sandbox works.
wait_health() { # container check
  local h=""
  for _ in $(seq 1 120); do
    h=$($ENGINE exec "$1" /app/docker/entrypoint.sh health 2>/dev/null) || true
    case $h in '{"status"'*) break ;; esac
    h=""
    sleep 0.5
  done
  if [ -z "$h" ]; then
    $ENGINE logs "$1" 2>&1 | tail -20
    fail "$1 never answered /health"
  fi
  printf '%s' "$h" | node -e '
    const h = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const other = h.problems.filter((p) => !/^(model|github): cannot reach .*127\.0\.0\.1:'"$DEAD"'/.test(p));
    console.log(`status ${h.status}; problems: ${h.problems.map((p) => p.slice(0, 90)).join(" | ")}`);
    if (other.length > 0 || !('"$2"')) { console.log(JSON.stringify(h)); process.exit(1); }' ||
    fail "$1: /health reports more than the unreachable GitHub and model, or not $2"
}
stop_timed() { # container -> prints "exit <code> after <s> s"
  local start end code
  start=$(date +%s.%N)
  $ENGINE stop -t 40 "$1" >/dev/null
  end=$(date +%s.%N)
  code=$($ENGINE inspect -f '{{.State.ExitCode}}' "$1")
  printf 'exit %s after %s s\n' "$code" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
}

step "3. the app with the embedded store: health, a webhook held on the volume, SIGTERM"
mkdir -p "$TMP/data" "$TMP/cache"
chown 10001:10001 "$TMP/data" "$TMP/cache" 2>/dev/null || chmod 0777 "$TMP/data" "$TMP/cache"
PORT=$(free_port)
APP=auto-fix-smoke-app-$$
CONTAINERS+=("$APP")
$ENGINE run -d --name "$APP" "${RUN_FLAGS[@]}" "${SANDBOX[@]}" "${COMMON[@]}" -e PORT="$PORT" \
  -v "$TMP/data:/data" -v "$TMP/cache:/cache" "$IMAGE" server >/dev/null
wait_health "$APP" 'h.sandbox.ok === true && h.queue.ok === true' | sed 's/^/   health: /'
$ENGINE exec "$APP" node -e '
  const body = JSON.stringify({ action: "labeled", label: { name: "auto-fix" },
    issue: { number: 1, title: "t", body: "b", state: "open", locked: false, user: { login: "x" } },
    repository: { name: "r", owner: { login: "o" }, clone_url: "http://127.0.0.1:1/o/r.git", default_branch: "main" },
    sender: { login: "maintainer", type: "User" }, installation: { id: 1 } });
  const sig = "sha256=" + require("crypto").createHmac("sha256", "smoke-secret").update(body).digest("hex");
  fetch(`http://127.0.0.1:${process.env.PORT}/api/github/webhooks`, { method: "POST", body,
    headers: { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": "smoke-1", "x-hub-signature-256": sig } })
    .then((r) => { console.log("   webhook answered", r.status); process.exit(r.ok ? 0 : 1); });'
sleep 2
echo "   $(stop_timed "$APP")" | tee "$TMP/app-stop"
grep -q "exit 0 " "$TMP/app-stop" || fail "the app did not stop cleanly"
$ENGINE logs "$APP" 2>&1 | grep -E '"stage":"(admission|run)"|shutdown done|SIGTERM' | cut -c1-220 | sed 's/^/   log: /'
run --network none -v "$TMP/data:/data" --entrypoint node "$IMAGE" -e '
  const { DatabaseSync } = require("node:sqlite");
  const db = new DatabaseSync("/data/jobs/jobs.sqlite", { readOnly: true });
  console.log("   held on the volume:", JSON.stringify(db.prepare("SELECT delivery_id, event FROM held_deliveries").all()));
  console.log("   jobs on the volume:", JSON.stringify(db.prepare("SELECT delivery_id, state FROM jobs").all()));' |
  tee "$TMP/jobs"
# GitHub is unreachable: the sender's access cannot be asked, so the delivery is held (not lost, not run)
# and is taken up again when GitHub answers, by this process or the next one on the same volume.
grep -q 'held on the volume: \[{"delivery_id":"smoke-1","event":"issues.labeled"}\]' "$TMP/jobs" ||
  fail "the delivery was not held on the volume"
grep -q 'jobs on the volume: \[\]' "$TMP/jobs" || fail "a job was made without the sender's access being known"

step "4. a worker against Redis"
RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save "" --appendonly no >"$TMP/redis.log" 2>&1 &
REDIS_PID=$!
OPS=$(free_port)
WORKER=auto-fix-smoke-worker-$$
CONTAINERS+=("$WORKER")
$ENGINE run -d --name "$WORKER" "${RUN_FLAGS[@]}" "${SANDBOX[@]}" "${COMMON[@]}" \
  -e REDIS_URL="redis://127.0.0.1:$RPORT/0" -e AUTO_FIX_OPS_PORT="$OPS" -e AUTO_FIX_HEALTH_URL="http://127.0.0.1:$OPS/health" \
  "$IMAGE" worker >/dev/null
wait_health "$WORKER" 'h.queue.kind === "redis" && h.queue.ok === true && h.sandbox.ok === true' | sed 's/^/   health: /'
echo "   $(stop_timed "$WORKER")" | tee "$TMP/worker-stop"
grep -q "exit 0 " "$TMP/worker-stop" || fail "the worker did not stop cleanly"

printf '\nall container checks passed (%s)\n' "$($ENGINE --version)"
