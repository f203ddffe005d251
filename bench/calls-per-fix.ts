/**
 * Model calls and tokens per fixed bug: one whole `auto-fix fix` (the real CLI, the bubblewrap sandbox,
 * the repository's own pytest tests, reproducer, review, validation, regression test) on a multi-file
 * real project, the Python standard library's `json` package (its five modules, renamed `jsonlite`, with
 * a test file of its own), with a bug put in `JSONEncoder.encode`. The scripted model on 127.0.0.1
 * answers as a capable model would: the bug located in one search round, fixed by the first patch, the
 * patch and the reproducer approved. Two runs: the locations named in the first search answer, and after
 * one round of API calls. Printed: the model calls of each stage, their tokens, and the run's status.
 * The target: at most 7 requests for a bug located in one search round and fixed on the first patch.
 *
 *   npm run bench:calls-per-fix
 *
 * Needs /usr/lib/python3.11/json (or another python3.x of this machine), pytest and bubblewrap.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../src/cli/main.ts";
import { fence, verdict } from "../test/review/helpers.ts";
import { agentScript, patchAnswer, searchSays } from "../test/support/agent-script.ts";
import { type ScriptHandler, startScriptedModel } from "../test/support/scripted-model.ts";
import { tempDir } from "../test/support/temp.ts";

const JSON_DIR = ["3.13", "3.12", "3.11"].map((v) => `/usr/lib/python${v}/json`).find(existsSync);
if (!JSON_DIR) {
  console.error("bench:calls-per-fix needs the json package of a python3 standard library in /usr/lib");
  process.exit(2);
}

const BUGGY = "            if self.ensure_ascii:\n                return encode_basestring_ascii(o)";
const WRONG = "            if not self.ensure_ascii:\n                return encode_basestring_ascii(o)";
const REPRO =
  "import jsonlite\nout = jsonlite.dumps('caf\\u00e9')\nassert out == '\"caf\\\\u00e9\"', f'expected an escaped string, got {out!r}'\n";
const TEST = [
  "import jsonlite",
  "",
  "",
  "def test_dumps_escapes_non_ascii_strings_by_default():",
  "    assert jsonlite.dumps('caf\\u00e9') == '\"caf\\\\u00e9\"'",
  "",
].join("\n");

function project(): string {
  const dir = join(tempDir("auto-fix-bench-calls-"), "jsonlite");
  mkdirSync(join(dir, "tests"), { recursive: true });
  cpSync(JSON_DIR!, join(dir, "jsonlite"), { recursive: true, filter: (p) => !p.includes("__pycache__") });
  const enc = join(dir, "jsonlite", "encoder.py");
  const text = readFileSync(enc, "utf8");
  if (!text.includes(BUGGY)) throw new Error(`${enc} does not hold the line the bug goes in`);
  writeFileSync(enc, text.replace(BUGGY, WRONG));
  writeFileSync(
    join(dir, "tests", "test_roundtrip.py"),
    [
      "import jsonlite",
      "",
      "",
      "def test_roundtrip_dict():",
      "    assert jsonlite.loads(jsonlite.dumps({'a': [1, 2.5, None]})) == {'a': [1, 2.5, None]}",
      "",
      "",
      "def test_dumps_ascii_string():",
      "    assert jsonlite.dumps('abc') == '\"abc\"'",
      "",
      "",
      "def test_encoder_indent():",
      "    assert jsonlite.JSONEncoder(indent=1).encode([1]) == '[\\n 1\\n]'",
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "README.md"), "# jsonlite\n\nThe standard library's json package, on its own.\n");
  return dir;
}

function script(searchRounds: 1 | 2): ScriptHandler {
  const located = searchSays(
    "The string path of JSONEncoder.encode tests ensure_ascii the wrong way round.",
    {
      bug_locations: [
        {
          file: "jsonlite/encoder.py",
          class: "JSONEncoder",
          method: "encode",
          intended_behavior: "Escape non-ASCII characters when ensure_ascii is true (the default).",
        },
      ],
    },
  );
  const agents = agentScript({
    search:
      searchRounds === 1
        ? [located]
        : [
            searchSays("dumps goes through JSONEncoder.encode; read it.", {
              API_calls: ['search_method_in_class("encode", "JSONEncoder")'],
            }),
            located,
          ],
    patch: [patchAnswer("jsonlite/encoder.py", WRONG, BUGGY)],
  });
  return (req, i) => {
    const system = String(req.messages[0]?.content ?? "");
    const last = String(req.messages.at(-1)?.content ?? "");
    if (last.includes('"has-reproducible-example"')) return '{"has-reproducible-example": true}';
    if (last.includes("Write a standalone") || last.includes("did not reproduce the issue"))
      return fence("python", REPRO);
    if (system.startsWith("You review a candidate fix")) return verdict("yes", "yes");
    if (system.startsWith("You write regression tests")) return fence("python", TEST);
    return agents(req, i);
  };
}

interface Usage {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
}

async function once(searchRounds: 1 | 2): Promise<void> {
  const repo = project();
  const issue = join(repo, "..", "issue.md");
  writeFileSync(
    issue,
    '# dumps no longer escapes non-ASCII\n\n`jsonlite.dumps(\'café\')` returns `"café"`; with the default ensure_ascii=True it should be `"caf\\u00e9"`.\n',
  );
  const server = await startScriptedModel(script(searchRounds));
  const out = join(repo, "..", "out");
  let stdout = "";
  let stderr = "";
  const started = performance.now();
  try {
    const code = await main(["fix", "--repo", repo, "--issue", issue, "--out", out, "--json"], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {
        ...process.env,
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: "bench",
        AUTO_FIX_MODEL: "gpt-4o-mini",
        AUTO_FIX_CACHE_DIR: join(repo, "..", "cache"),
      },
      cwd: join(repo, ".."),
      isTTY: false,
    });
    const seconds = (performance.now() - started) / 1000;
    let status = `exit ${code}`;
    try {
      const r = JSON.parse(stdout) as { status: string; regression_test?: { status: string } | null };
      status += `, status ${r.status}, regression test ${r.regression_test?.status ?? "none"}`;
    } catch {
      status += `: ${stderr.slice(-600)}`;
    }
    const timings = JSON.parse(readFileSync(join(out, "timings.json"), "utf8")) as {
      modelCalls: number;
      usageByStage: Record<string, Usage>;
    };
    const total = Object.values(timings.usageByStage).reduce(
      (a, u) => ({
        calls: a.calls + u.calls,
        prompt_tokens: a.prompt_tokens + u.prompt_tokens,
        completion_tokens: a.completion_tokens + u.completion_tokens,
      }),
      { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
    );
    console.log(
      `\n== located ${searchRounds === 1 ? "in the first search answer" : "after one round of API calls"}: ${status}, ${seconds.toFixed(1)} s`,
    );
    for (const [stage, u] of Object.entries(timings.usageByStage))
      console.log(
        `  ${stage.padEnd(10)} ${u.calls} call(s), ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens`,
      );
    console.log(
      `  ${"total".padEnd(10)} ${timings.modelCalls} model calls (target: at most 7), ${total.prompt_tokens} prompt + ${total.completion_tokens} completion tokens`,
    );
  } finally {
    await server.close();
  }
}

console.log(`project: ${JSON_DIR} (5 modules) as jsonlite, with tests/test_roundtrip.py (3 tests)`);
await once(1);
await once(2);
