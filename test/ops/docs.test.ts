import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ROOT } from "./support/app-process.ts";

const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");

test("the README's first screen is two commands and links the Deploying page", () => {
  const readme = read("README.md");
  const firstScreen = readme.slice(0, readme.indexOf("\n## "));
  const blocks = [...firstScreen.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split("\n"));
  assert.equal(blocks.length, 1);
  assert.equal(blocks[0]!.length, 2);
  assert.match(blocks[0]![0]!, /install\.sh && scripts\/with-node npm start/);
  assert.match(blocks[0]![1]!, /install\.sh --test-tools && scripts\/with-node npm test/);
  assert.match(read(".ci/run"), /^bash scripts\/install\.sh --test-tools$/m, "CI installs the test tools");
  assert.match(firstScreen, /\[docs\/deploying\.md\]\(docs\/deploying\.md\)/);
});

test("the Deploying page covers what an operator needs, and its links resolve", () => {
  const page = read("docs/deploying.md");
  const headings = [...page.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!);
  for (const h of [
    "Registering the app",
    "Receiving webhooks",
    "Choosing the queue",
    "Containers",
    "What bubblewrap needs in a container",
    "Scaling workers",
    "Health, logs and metrics",
    "Stopping and upgrading",
    "Backups of the job store",
  ]) {
    assert.ok(headings.includes(h), h);
  }
  for (const m of page.matchAll(/\]\(([^)\s]+)\)/g)) {
    const [file = "", hash] = m[1]!.split("#");
    if (/^https?:/.test(file)) continue;
    const target = file ? join(ROOT, dirname("docs/deploying.md"), file) : join(ROOT, "docs/deploying.md");
    assert.ok(existsSync(target), m[1]!);
    if (hash) {
      const anchors = [...readFileSync(target, "utf8").matchAll(/^#+ (.+)$/gm)].map((h) => anchor(h[1]!));
      assert.ok(anchors.includes(hash), `${m[1]}: no heading #${hash}`);
    }
  }
  for (const setting of [
    "AUTO_FIX_PUBLIC_URL",
    "WEBHOOK_PROXY_URL",
    "REDIS_URL",
    "AUTO_FIX_SHUTDOWN_GRACE_SECONDS",
  ]) {
    assert.match(read(".env.example"), new RegExp(`^# ?${setting}=`, "m"), `${setting} in .env.example`);
  }
});
