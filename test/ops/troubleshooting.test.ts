/**
 * docs/troubleshooting.md quotes messages as the code prints them: each heading's literal parts occur
 * in the sources (so a reworded message cannot leave the page quoting one nobody sees), and each
 * message has its cause and its fix.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "./support/app-process.ts";

/** Every source file a message can come from: src/, bin/ and the container's entry point. */
function sources(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (/\.(ts|js|sh)$/.test(e.name)) texts.push(readFileSync(join(ROOT, rel), "utf8"));
    }
  };
  for (const d of ["src", "bin", "docker"]) walk(d);
  return texts.join("\n");
}

/**
 * Each heading, in order, with the literal parts of its message (the values between them, such as a
 * URL, a port or an error code, are the example's own).
 */
const QUOTED: string[][] = [
  ["auto-fix needs Node.js >= 22.18 (this is "],
  ["runs will fail: ", "cannot reach the model endpoint "],
  [
    "the model endpoint answered GET ",
    "a web page (HTML)",
    ", not JSON (HTTP ",
    " OPENAI_BASE_URL has no /v1 at the end",
  ],
  ["the model endpoint refused the key (HTTP ", ": check OPENAI_API_KEY"],
  ["no model configured: set ", " has no known price"],
  [
    "the temporary folder ",
    " is not reachable by the sandbox's unprivileged uid; set TMPDIR to a folder whose parents are world-traversable (e.g. /tmp)",
  ],
  ["bubblewrap cannot create a sandbox here: ", " (user namespaces may be disabled", "is not installed"],
  ["cannot reach GitHub's API at ", "; nothing can be answered or fixed until it can"],
  ["GitHub sends this app's webhooks to ", " is this machine's loopback address, which GitHub cannot reach"],
  ["webhooks: proxy ", " cannot be reached (", "); retrying with backoff", " dropped ("],
  [" is not valid:", "unknown setting(s) ", "did you mean '"],
  ["Redis runs with appendonly ", ": jobs and held deliveries are lost when it restarts"],
  ["deliveries: ", " answered webhook ", " not finished after ", " s (oldest "],
  ["cannot listen on "],
];

test("each message troubleshooting.md quotes is printed by the code, with its cause and fix", () => {
  const page = readFileSync(join(ROOT, "docs/troubleshooting.md"), "utf8");
  const code = sources();
  const sections = page.split(/^## /m).slice(1);
  assert.ok(sections.length >= 10, "at least the ten messages a new user most likely meets");
  assert.equal(sections.length, QUOTED.length, "every heading has its literal parts listed here");
  sections.forEach((section, n) => {
    const heading = section.slice(0, section.indexOf("\n"));
    assert.match(heading, /^`.+`$/, `heading ${n + 1} quotes a message`);
    for (const part of QUOTED[n]!) {
      assert.ok(heading.includes(part), `heading ${n + 1} (${heading}) quotes ${JSON.stringify(part)}`);
      assert.ok(code.includes(part), `${JSON.stringify(part)} (heading ${n + 1}) is not printed by the code`);
    }
    for (const label of ["**Where:**", "**Cause:**", "**Fix:**"]) {
      assert.ok(section.includes(label), `heading ${n + 1} (${heading}) has ${label}`);
    }
  });
});

test("the check finds a message the code does not print", () => {
  const code = sources();
  assert.ok(!code.includes("auto-fix needs Node.js >= 18 (this is "));
  assert.ok(code.includes(QUOTED[0]![0]!));
});
