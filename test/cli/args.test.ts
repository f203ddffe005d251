import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { COMMAND_SPECS } from "../../src/cli/specs.ts";
import { API_SPECS } from "../../src/search/search-api.ts";
import { runCli, tempDir } from "./support.ts";

/** A small Python repository with a line that contains `-h` (what `search_code -- -h` must find). */
function repoWithDashH(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t);
  mkdirSync(join(dir, "tool"));
  writeFileSync(
    join(dir, "tool", "cli.py"),
    'import sys\n\n\ndef wants_help(argv):\n    return "-h" in argv or "--help" in argv\n',
  );
  writeFileSync(join(dir, "notes.txt"), "x marks the spot\nnothing here\n");
  return dir;
}

test("sandbox: -h after -- belongs to the command (grep -h runs), not to auto-fix", async (t) => {
  const dir = repoWithDashH(t);
  const r = await runCli(["sandbox", dir, "--", "grep", "-h", "x", "notes.txt"], {
    env: { AUTO_FIX_CACHE_DIR: join(dir, ".cache") },
  });
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, /Usage:/);
  assert.match(r.out, /x marks the spot/);
  // Options before -- still work, and --help there is help.
  const help = await runCli(["sandbox", dir, "--help", "--", "grep", "x", "notes.txt"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: auto-fix sandbox <dir> \[options\] -- <command\.\.\.>/);
});

test("search: -h as the API's argument is searched for, after -- or after the API name", async (t) => {
  const dir = repoWithDashH(t);
  const env = { AUTO_FIX_CACHE_DIR: join(dir, ".cache") };
  for (const args of [
    ["search", dir, "search_code", "--", "-h"],
    ["search", dir, "search_code", "-h"],
  ]) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
    assert.doesNotMatch(r.out, /Usage:/);
    assert.match(r.out, /tool\/cli\.py/);
    assert.match(r.out, /return "-h" in argv/);
  }
  // Before the API's arguments, -h is help.
  const help = await runCli(["search", dir, "-h"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: auto-fix search <dir> <api> \[args\.\.\.\]/);
});

test("an unknown option is a message and exit 2 for every command, never a stack trace", async (t) => {
  const dir = repoWithDashH(t);
  const cases: string[][] = [
    ["index", dir, "--frobnicate"],
    ["search", dir, "search_class", "A", "--frobnicate"],
    ["locate", dir, "--method", "m", "--frobnicate"],
    ["apply", dir, join(dir, "notes.txt"), "--frobnicate"],
    ["sandbox", dir, "--frobnicate", "--", "true"],
    ["fix", "--repo", dir, "--issue", join(dir, "notes.txt"), "--frobnicate"],
    ["worker", "--frobnicate"],
  ];
  for (const args of cases) {
    const r = await runCli(args, { env: { AUTO_FIX_CACHE_DIR: join(dir, ".cache") } });
    assert.equal(r.code, 2, `${args[0]}: ${r.err}`);
    assert.match(r.err, new RegExp(`^auto-fix ${args[0]}: unknown option '--frobnicate' for '${args[0]}'`));
    assert.match(r.err, new RegExp(`Run 'auto-fix ${args[0]} --help' for its options`));
    assert.doesNotMatch(r.err, /\n\s+at /, "no stack trace");
    assert.equal(r.out, "");
  }
  assert.doesNotMatch(
    (await runCli(["worker", "--frobnicate"])).err,
    /did you mean/,
    "nothing close: no guess",
  );
  // A mistyped option: the one it most likely meant is named.
  const typo = await runCli(["fix", "--repo", dir, "--isue", join(dir, "notes.txt")]);
  assert.equal(typo.code, 2);
  assert.match(typo.err, /^auto-fix fix: unknown option '--isue' for 'fix'; did you mean '--issue'\?/);
  const typo2 = await runCli(["issue", dir, "--issue", join(dir, "notes.txt"), "--dryrun", "x"]);
  assert.match(typo2.err, /unknown option '--dryrun' for 'issue'; did you mean '--dry-run'\?/);
  // A short option nobody defines, a flag given a value, a string option without one.
  const short = await runCli(["sandbox", dir, "-q", "--", "true"]);
  assert.equal(short.code, 2);
  assert.match(short.err, /unknown option '-q'/);
  const flagValue = await runCli(["index", dir, "--json=yes"]);
  assert.equal(flagValue.code, 2);
  assert.match(flagValue.err, /option '--json' takes no value/);
  const noValue = await runCli(["sandbox", dir, "--timeout", "--", "true"]);
  assert.equal(noValue.code, 2);
  assert.match(noValue.err, /option '--timeout' needs a value/);
  const swallowed = await runCli(["fix", "--repo", "--json"]);
  assert.equal(swallowed.code, 2);
  assert.match(
    swallowed.err,
    /option '--repo' needs a value; to give one that begins with '-', write --repo=--json/,
  );
  // After a search API's name, an unknown dash word says how to pass it.
  const dash = await runCli(["search", dir, "search_code", "-x"]);
  assert.equal(dash.code, 2);
  assert.match(dash.err, /put -- before arguments that begin with '-'/);
});

test("each command's --help lists every option it reads; search's lists the eight APIs with their arguments", async () => {
  const expected: Record<string, string[]> = {
    index: ["--json", "--verbose"],
    search: ["--json", "--include-tests"],
    locate: ["--file F", "--class C", "--method M", "--intended TEXT", "--json"],
    apply: ["--json", "--write", "--protect GLOB"],
    sandbox: ["--network", "--timeout S", "--memory MB", "--setup", "--json", "--no-sandbox"],
    fix: [
      "--repo DIR",
      "--issue FILE",
      "--out DIR",
      "--test-cmd CMD",
      "--strategy linear|tree",
      "--rounds N",
      "--patch-attempts N",
      "--guidance TEXT",
      "--guidance-file FILE",
      "--keep-workspace",
      "--json",
    ],
    worker: ["--concurrency N", "--grace-seconds S", "--port P", "--host H"],
    issue: [
      "--issue FILE",
      "--dry-run DIR",
      "--number N",
      "--sender LOGIN",
      "--permission LEVEL",
      "--guidance TEXT",
      "--test-cmd CMD",
      "--json",
    ],
  };
  assert.deepEqual(COMMAND_SPECS.map((s) => s.name).sort(), Object.keys(expected).sort());
  for (const [name, options] of Object.entries(expected)) {
    const r = await runCli([name, "--help"]);
    assert.equal(r.code, 0, r.err);
    for (const o of [...options, "-h, --help"])
      assert.ok(r.out.includes(o), `${name} --help shows ${o}:\n${r.out}`);
    // The table is the parser's too: every listed option is accepted (help is asked for after it).
    const spec = COMMAND_SPECS.find((s) => s.name === name)!;
    assert.equal(spec.options.length, options.length, `${name}: no option left out of the help`);
  }
  const search = await runCli(["search", "--help"]);
  assert.equal(API_SPECS.length, 8);
  for (const api of API_SPECS) {
    assert.ok(
      search.out.includes(`${api.name} ${api.params.map((p) => `<${p}>`).join(" ")}`),
      `search --help shows ${api.name} with its arguments`,
    );
  }
  const fix = await runCli(["fix", "--help"]);
  for (const setting of [
    "AUTO_FIX_MAX_COST_USD_PER_RUN",
    "AUTO_FIX_PRICE_INPUT_PER_MTOK",
    "AUTO_FIX_MAX_UNUSABLE_ANSWERS",
  ])
    assert.ok(fix.out.includes(setting), `fix --help names ${setting}`);
});

test("every option in the help is accepted by its command's parser", async (t) => {
  const dir = repoWithDashH(t);
  // Each option given (with a value where it takes one) and then --help: help means parsing got there.
  for (const spec of COMMAND_SPECS) {
    const args = spec.operands.includes("<dir>") ? [dir] : [];
    for (const o of spec.options) args.push(`--${o.name}`, ...(o.type === "string" ? ["1"] : []));
    const r = await runCli([spec.name, ...args, "--help"]);
    assert.equal(r.code, 0, `${spec.name}: ${r.err}`);
    assert.match(r.out, new RegExp(`^Usage: auto-fix ${spec.name}`));
  }
});

test("an empty issue (no title, no body) is refused with exit 2 and one sentence by fix and issue", async (t) => {
  const dir = repoWithDashH(t);
  const env = { AUTO_FIX_CACHE_DIR: join(dir, ".cache") };
  const files = {
    "empty.md": "",
    "blank.md": "  \n\n\t\n",
    "comment.md": "<!-- the template's hint -->\n\u200B\n",
    "empty.json": '{"title": "  ", "body": ""}',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  for (const name of Object.keys(files)) {
    const issue = join(dir, name);
    const out = join(dir, `out-${name}`);
    for (const args of [
      ["fix", "--repo", dir, "--issue", issue, "--out", out],
      ["issue", dir, "--issue", issue, "--dry-run", out],
    ]) {
      const r = await runCli(args, { env, cwd: dir });
      assert.equal(r.code, 2, `${args[0]} ${name}: ${r.err}`);
      assert.equal(
        r.err,
        `auto-fix ${args[0]}: --issue ${issue} is empty: write the bug's title on the first line and what goes wrong below it\n`,
      );
      assert.equal(r.out, "");
      assert.equal(existsSync(out), false, "nothing was started");
    }
  }
  // An issue with words in it goes on (here to the model settings, which this environment lacks).
  writeFileSync(join(dir, "real.md"), "wants_help ignores -h\n");
  const real = await runCli(["fix", "--repo", dir, "--issue", join(dir, "real.md")], { env, cwd: dir });
  assert.equal(real.code, 2);
  assert.doesNotMatch(real.err, /is empty/);
  assert.match(real.err, /AUTO_FIX_MODEL|model/);
});

test("a missing repository folder reads one way in every command", async (t) => {
  const dir = repoWithDashH(t);
  const missing = join(dir, "no-such-folder");
  const issue = join(dir, "notes.txt");
  const cases: string[][] = [
    ["fix", "--repo", missing, "--issue", issue],
    ["issue", missing, "--issue", issue, "--dry-run", join(dir, "dry")],
    ["index", missing],
    ["search", missing, "search_class", "A"],
    ["sandbox", missing, "--", "true"],
    ["apply", missing, issue],
  ];
  for (const args of cases) {
    const r = await runCli(args, {
      env: { AUTO_FIX_CACHE_DIR: join(dir, ".cache"), AUTO_FIX_MODEL: "gpt-4o-mini", OPENAI_API_KEY: "k" },
    });
    assert.equal(r.code, 2, `${args[0]}: ${r.err}`);
    assert.match(
      r.err,
      new RegExp(`^auto-fix ${args[0]}: (--repo )?${missing} is not a directory\\n`),
      r.err,
    );
  }
});
