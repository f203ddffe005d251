import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { inertForTerminal, quoteForMessage } from "../../src/core/terminal-text.ts";
import { runCli, tempDir, terminalControls } from "./support.ts";

/** What a hostile program or file writes to take over a terminal. */
const ATTACK =
  "\x1b]0;pwned title\x07" + // OSC: window title
  "\x1b[2J\x1b[H" + // CSI: clear screen, cursor home
  "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\" + // OSC 8 hyperlink
  "\u009b31m" + // C1 CSI (8-bit form)
  "hidden\rvisible" + // carriage return that overwrites the line
  "\u202eevil\u202c"; // bidi override

test("control characters are made visible, newline, tab and CRLF are kept", () => {
  const out = inertForTerminal(`a\tb\nc\r\nd${ATTACK}`);
  assert.equal(terminalControls(Buffer.from(out)).length, 0, out);
  assert.ok(out.startsWith("a\tb\nc\r\nd\\u001b]0;pwned title\\u0007"));
  assert.ok(out.includes("\\u009b31m"));
  assert.ok(out.includes("hidden\\u000dvisible"));
  assert.ok(out.includes("\\u202eevil\\u202c"));
  // The escapes are JSON escapes: JSON output stays valid and reads back to the original text.
  const json = inertForTerminal(JSON.stringify({ text: ATTACK }));
  assert.equal((JSON.parse(json) as { text: string }).text, ATTACK);
  assert.equal(quoteForMessage("x".repeat(300), 10), "xxxxxxxxxx… (290 more characters)");
});

test("sandbox: a command's escape sequences never reach the terminal", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "attack.txt"), ATTACK);
  const r = await runCli(["sandbox", dir, "--", "sh", "-c", "cat attack.txt; cat attack.txt >&2; exit 1"]);
  assert.equal(r.code, 1, r.err);
  assert.deepEqual(terminalControls(r.outBytes), []);
  assert.deepEqual(terminalControls(r.errBytes), []);
  assert.match(r.out, /\\u001b\]0;pwned title\\u0007/);
  const json = await runCli(["sandbox", dir, "--json", "--", "cat", "attack.txt"]);
  assert.equal(json.code, 0, json.err);
  assert.deepEqual(terminalControls(json.outBytes), []);
  assert.equal((JSON.parse(json.out) as { stdout: string }).stdout, ATTACK);
});

test("search and index: a repository's file names and code cannot drive the terminal", async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "pkg"));
  writeFileSync(
    join(dir, "pkg", "evil.py"),
    `def banner():\n    return "${ATTACK.replaceAll("\\", "\\\\")}"\n`,
  );
  writeFileSync(join(dir, "pkg", "\x1b[31mred\x07.py"), "def red():\n    return 1\n");
  const env = { AUTO_FIX_CACHE_DIR: join(dir, ".cache") };
  const text = await runCli(["search", dir, "search_method", "banner"], { env });
  assert.equal(text.code, 0, text.err);
  assert.deepEqual(terminalControls(text.outBytes), []);
  assert.match(text.out, /pwned title/);
  const index = await runCli(["index", dir, "--verbose"], {
    env: { AUTO_FIX_CACHE_DIR: join(dir, ".cache2") },
  });
  assert.equal(index.code, 0, index.err);
  assert.deepEqual(terminalControls(index.outBytes), []);
  assert.deepEqual(
    terminalControls(index.errBytes),
    [],
    "no progress line and no raw name when not a terminal",
  );
  const located = await runCli(["search", dir, "search_method", "red"], { env });
  assert.deepEqual(terminalControls(located.outBytes), []);
  assert.match(located.out, /\\u001b\[31mred\\u0007\.py/);
});

test("index on a terminal shows the files indexed so far on one line, then clears it", async (t) => {
  const dir = tempDir(t);
  for (let i = 0; i < 30; i++) writeFileSync(join(dir, `m${i}.py`), `def f${i}():\n    return ${i}\n`);
  const raw: string[] = [];
  let out = "";
  const code = await main(["index", dir], {
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => raw.push(s),
    stderrRaw: (s) => raw.push(s),
    env: { AUTO_FIX_CACHE_DIR: join(dir, ".cache") },
    isTTY: true,
  });
  assert.equal(code, 0);
  const err = raw.join("");
  assert.match(err, /^\r\x1b\[Kauto-fix index: \d+ of \d+ files indexed/);
  assert.ok(err.endsWith("\r\x1b[K"), "the line is cleared before the result");
  assert.match(out, /^30 files/);
});
