/**
 * scripts/build-image.sh's command line, without building anything (the build itself takes minutes:
 * `npm run bench:image` runs it): bad options are refused with one sentence and exit 2, the plan names
 * the packages docs/deploying.md lists, and the CA bundle reaches the build as a secret.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "./support/app-process.ts";

const SCRIPT = join(ROOT, "scripts/build-image.sh");
const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync("bash", [SCRIPT, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, ...env },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test("bad options are refused with one sentence and exit 2, before anything is installed or built", () => {
  const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [["--bogus"], {}, /^build-image: unknown option '--bogus' \(see --help\)\n$/],
    [["--tag"], {}, /^build-image: --tag needs a value \(see --help\)\n$/],
    [["--tag", "--dry-run"], {}, /^build-image: --tag needs a value/],
    [
      ["--tag", "Auto Fix!"],
      {},
      /^build-image: --tag 'Auto Fix!' is not an image name like auto-fix:latest\n$/,
    ],
    [["--node", "20"], {}, /^build-image: --node 20 is too old: auto-fix needs Node\.js 22\.18 or newer\n$/],
    [["--node", "22.17.0"], {}, /too old/],
    [["--node", "latest"], {}, /^build-image: --node 'latest' is not a version like 24 or 22\.18\.0\n$/],
    [
      ["--mirror", "ftp://deb.example"],
      {},
      /^build-image: --mirror 'ftp:\/\/deb\.example' is not an http\(s\) URL\n$/,
    ],
    [["--suite", "../../etc"], {}, /is not a Debian release name/],
    [
      ["--ca-file", "/nonexistent/ca.pem"],
      {},
      /^build-image: --ca-file \/nonexistent\/ca\.pem cannot be read/,
    ],
    [[], { ENGINE: "lxc" }, /^build-image: ENGINE must be podman or docker \(got 'lxc'\)\n$/],
  ];
  for (const [args, env, message] of cases) {
    const r = run([...args, ...(args.includes("--dry-run") ? [] : ["--dry-run"])], env);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, message, args.join(" "));
    assert.equal(r.err.trim().split("\n").length, 1, "one sentence");
    assert.equal(r.out, "", "no step was started");
  }
});

test("the plan: the packages the deploying page lists, the base, and the CA bundle as a build secret", () => {
  const r = run(["--dry-run", "--tag", "auto-fix:test"]);
  assert.equal(r.code, 0, r.err);
  const packages = /would install if missing: (.+)/.exec(r.out)?.[1]?.split(" ").sort();
  const page = readFileSync(join(ROOT, "docs/deploying.md"), "utf8");
  const documented = /`apt-get install ([a-z0-9 -]+)`/.exec(page)?.[1]?.split(" ").sort();
  assert.ok(packages && documented);
  assert.deepEqual(documented, packages, "docs/deploying.md lists what the script installs");
  assert.match(page, /sudo scripts\/build-image\.sh/);
  assert.match(r.out, /debootstrap --variant=minbase bookworm http:\/\/deb\.debian\.org\/debian/);
  assert.match(
    r.out,
    /podman build --build-arg NODE_IMAGE=auto-fix-base:bookworm-node24 --secret id=host_ca,src=\/etc\/ssl\/certs\/ca-certificates\.crt -f Dockerfile \./,
  );
  // The Dockerfile reads that secret in the npm step.
  const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  assert.match(
    dockerfile,
    /RUN --mount=type=secret,id=host_ca,target=\/run\/secrets\/host_ca \\\n\s+export NODE_EXTRA_CA_CERTS=\/run\/secrets\/host_ca/,
  );
  // The base's PATH has the sbin folders (useradd) in the script that imports it.
  assert.match(
    readFileSync(SCRIPT, "utf8"),
    /ENV PATH=\/usr\/local\/sbin:\/usr\/local\/bin:\/usr\/sbin:\/usr\/bin:\/sbin:\/bin/,
  );
  const help = run(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /^usage: scripts\/build-image\.sh \[options\]/);
});
