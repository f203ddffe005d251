/**
 * The container run docs/deploying.md documents works as written: it carries the options Docker and
 * Podman each need (the sandbox's security options; the limits Podman cannot raise past the host's), and,
 * where a container engine runs and an `auto-fix` image is present, the command itself is run exactly as
 * written (with `podman` for `docker` where only Podman is installed) and the app answers /health.
 * No image is built here: that takes minutes (scripts/build-image.sh, scripts/container-smoke.sh).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../support/temp.ts";
import { ROOT } from "./support/app-process.ts";

/** The one-machine `docker run …` of docs/deploying.md, continuation lines kept. */
function documentedRun(): string {
  const page = readFileSync(join(ROOT, "docs/deploying.md"), "utf8");
  const blocks = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  const runs = blocks.filter((b) => b.startsWith("docker run -d --name auto-fix "));
  assert.equal(runs.length, 1, "docs/deploying.md documents one `docker run` of the image");
  return runs[0]!;
}

/** The engine that can run a container here: docker with a daemon, else podman; null when neither. */
function engine(): "docker" | "podman" | null {
  for (const e of ["docker", "podman"] as const) {
    if (spawnSync(e, ["info"], { stdio: "ignore", timeout: 20_000 }).status === 0) return e;
  }
  return null;
}

test("the documented container run carries the options Docker and Podman need", () => {
  const cmd = documentedRun();
  const words = cmd.replace(/\\\n/g, " ");
  for (const opt of ["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"])
    assert.ok(words.includes(`--security-opt ${opt}`), opt);
  // Podman's default open-file limit is above many hosts' hard limit: the command sets both limits.
  assert.match(words, /--ulimit "nofile=\$\(ulimit -Hn\)"/);
  assert.match(words, /--ulimit nproc=\d+/);
  // The shell's own limit is what the command gives: a number the shell prints.
  const hard = spawnSync("sh", ["-c", "ulimit -Hn"], { encoding: "utf8" }).stdout.trim();
  assert.match(hard, /^\d+$/);
});

const found = engine();
const hasImage =
  found !== null && spawnSync(found, ["image", "inspect", "auto-fix"], { stdio: "ignore" }).status === 0;

test("the documented container run, run as written, starts the app and answers /health", {
  skip: !hasImage && "no container engine with an `auto-fix` image here (none is built by the tests)",
}, async () => {
  const e = found!;
  const cwd = tempDir("af-container-docs-");
  mkdirSync(join(cwd, "secrets"));
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();
  writeFileSync(join(cwd, "secrets/github-app.pem"), key);
  writeFileSync(
    join(cwd, ".env"),
    "APP_ID=1\nWEBHOOK_SECRET=s\nAUTO_FIX_PUBLIC_URL=https://autofix.example.com\n",
  );
  const cmd = e === "docker" ? documentedRun() : documentedRun().replace(/^docker /, "podman ");
  spawnSync(e, ["rm", "-f", "auto-fix"], { stdio: "ignore" });
  try {
    const started = spawnSync("sh", ["-c", cmd], { cwd, encoding: "utf8", timeout: 120_000 });
    assert.equal(started.status, 0, `${cmd}\n${started.stdout}${started.stderr}`);
    let answered = 0;
    for (let i = 0; i < 120 && answered === 0; i++) {
      answered = await fetch("http://127.0.0.1:3000/health").then(
        (r) => r.status,
        () => 0,
      );
      if (answered === 0) await new Promise((r) => setTimeout(r, 1000));
    }
    const logs = spawnSync(e, ["logs", "auto-fix"], { encoding: "utf8" });
    assert.ok(answered === 200 || answered === 503, `no /health answer:\n${logs.stdout}${logs.stderr}`);
  } finally {
    spawnSync(e, ["rm", "-f", "auto-fix"], { stdio: "ignore" });
  }
});
