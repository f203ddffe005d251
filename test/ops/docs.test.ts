import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
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

/** README.md and every page under docs/. */
const userDocs = (): [string, string][] => [
  ["README.md", read("README.md")],
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f): [string, string] => [`docs/${f}`, read(`docs/${f}`)]),
];

/** Lines that run the app or the command line without `scripts/with-node` in front. */
function bareCommands(text: string): string[] {
  return text.split("\n").filter((line) => /(?<!scripts\/with-node )\b(npm start|npx auto-fix)\b/.test(line));
}

test("every doc runs the app and the command line one way: scripts/with-node npm start, scripts/with-node npx auto-fix", () => {
  const bare = userDocs().flatMap(([file, text]) => bareCommands(text).map((l) => `${file}: ${l.trim()}`));
  assert.deepEqual(bare, []);
  // The check itself: what it must find, and what it must let through.
  assert.deepEqual(bareCommands("run `npm start`\nREDIS_URL=x npx auto-fix worker\nnpm run bench:index"), [
    "run `npm start`",
    "REDIS_URL=x npx auto-fix worker",
  ]);
  assert.deepEqual(
    bareCommands("REDIS_URL=x scripts/with-node npx auto-fix worker\nscripts/with-node npm start"),
    [],
  );
  // The README's command-line section uses the same form as its first screen.
  const readme = read("README.md");
  const cli = readme.slice(readme.indexOf("## Command line"));
  assert.match(cli.slice(0, cli.indexOf("\n## ", 3)), /scripts\/with-node npx auto-fix fix /);
});

test("the docs spell this machine's address as the app prints it (localhost), and give npm test's time", () => {
  // `scripts/with-node npm start` prints `open http://localhost:3000/probot`.
  assert.match(read("src/app/start.ts"), /const host = env\.HOST \|\| "localhost";/);
  for (const [file, text] of [...userDocs(), [".env.example", read(".env.example")] as [string, string]]) {
    assert.doesNotMatch(
      text,
      /(https?|redis):\/\/127\.0\.0\.1[:/]/,
      `${file} writes a local URL as 127.0.0.1`,
    );
  }
  const readme = read("README.md");
  assert.match(readme, /`npm test` takes about 20 minutes on a 2-core machine/);
});

test("the README quotes each benchmark corpus at the size its benchmark page gives", () => {
  const readme = read("README.md");
  const index = read("docs/index-benchmark.md");
  for (const size of ["CPython 3.11 `Lib`, 1,789 files, 30.0 MB", "`node_modules`, 6,357 files, 46.8 MB"]) {
    assert.ok(index.includes(size), `docs/index-benchmark.md: ${size}`);
  }
  assert.ok(readme.includes("(CPython 3.11 `Lib`, 1,789 files, 30.0 MB)"));
  assert.ok(readme.includes("`node_modules` (6,357 files, 46.8 MB, with `--all`)"));
  // The same corpus is never given another size elsewhere.
  for (const [file, text] of userDocs()) {
    assert.doesNotMatch(text, /1,79[01] files|10,741 files/, file);
  }
});
