/**
 * `npm run bench:fix [-- <repo-dir>]`: one full `fix` run on a large repository (default: the Python
 * standard library of this machine) against the scripted model on 127.0.0.1, cold and then warm index
 * cache. Prints the wall time of everything that is not the model (work-tree copy, index, search APIs,
 * patch application) and the model calls and tokens per stage.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpenAIModel } from "../src/model/openai-model.ts";
import { ArtifactRecorder } from "../src/model/recorder.ts";
import { UsageMeter } from "../src/model/usage.ts";
import { openCode } from "../src/pipeline/open-code.ts";
import { loadRepoConfig } from "../src/config/index.ts";
import { runFix } from "../src/pipeline/run-fix.ts";
import { agentScript, patchAnswer, searchSays } from "../test/support/agent-script.ts";
import { startScriptedModel } from "../test/support/scripted-model.ts";

const repo =
  process.argv[2] ?? ["/usr/lib/python3.13", "/usr/lib/python3.12", "/usr/lib/python3.11"].find(existsSync);
if (!repo || !existsSync(join(repo, "urllib", "parse.py"))) {
  console.error("usage: npm run bench:fix -- <python-stdlib-dir>  (a folder holding urllib/parse.py)");
  process.exit(2);
}

const issue = {
  title: "urljoin returns the base when the url is empty",
  body: "urllib.parse.urljoin('http://a/b', '') returns 'http://a/b'; see _coerce_args handling.",
};

function script() {
  return agentScript({
    search: [
      searchSays("Look at urljoin and its helpers.", {
        API_calls: [
          'search_method("urljoin")',
          'search_class("OrderedDict")',
          'search_code("_coerce_args(base, url)")',
        ],
      }),
      searchSays("urljoin returns early on an empty url. More context.", {
        API_calls: ['search_method_in_file("urlparse", "urllib/parse.py")', 'search_code("def urlsplit")'],
      }),
      searchSays("urlparse splits the url. Found it.", {
        bug_locations: [
          {
            file: "urllib/parse.py",
            method: "urljoin",
            intended_behavior: "Keep the early return but document it.",
          },
        ],
      }),
    ],
    patch: [
      patchAnswer(
        "urllib/parse.py",
        "    if not url:\n        return base",
        "    if not url:\n        # An empty url means the base itself.\n        return base",
      ),
    ],
  });
}

async function once(label: string, cacheDir: string) {
  const server = await startScriptedModel(script());
  const out = mkdtempSync(join(tmpdir(), "auto-fix-bench-"));
  const meter = new UsageMeter();
  const recorder = new ArtifactRecorder(out);
  const model = new OpenAIModel(
    {
      baseURL: server.baseURL,
      apiKey: "bench",
      model: "gpt-4o-mini",
      timeoutMs: 30_000,
      maxRetries: 0,
      baseBackoffMs: 1000,
      maxBackoffMs: 1000,
      maxRetryAfterMs: 1000,
      jsonMode: true,
      stream: false,
    },
    { meter, recorder },
  );
  const t0 = performance.now();
  const result = await runFix(
    { repo: repo!, issue, out },
    {
      model,
      meter,
      recorder,
      config: loadRepoConfig(repo!),
      sandbox: { port: null, problem: "this benchmark runs no stage that needs one" },
      openCode: (w) => openCode(w, { cacheDir }),
    },
  );
  const wall = performance.now() - t0;
  await server.close();
  const timings = JSON.parse(readFileSync(join(out, "timings.json"), "utf8"));
  const modelMs = readdirSync(join(out, "model-calls"))
    .filter((f) => f.endsWith(".json"))
    .reduce((s, f) => s + JSON.parse(readFileSync(join(out, "model-calls", f), "utf8")).ms, 0);
  const report = readFileSync(join(out, "report.md"), "utf8");
  const indexLine = report.split("\n").find((l) => l.startsWith("Index:")) ?? "";
  console.log(`\n== ${label}: status ${result.status}; ${indexLine}`);
  for (const t of timings.timings) console.log(`  ${t.stage.padEnd(10)} ${(t.ms / 1000).toFixed(3)} s`);
  console.log(`  search APIs (sum of calls)   ${(timings.toolMs.search / 1000).toFixed(3)} s`);
  console.log(`  patch application (sum)      ${(timings.toolMs.apply / 1000).toFixed(3)} s`);
  console.log(`  model calls (scripted, sum)  ${(modelMs / 1000).toFixed(3)} s`);
  console.log(
    `  total wall ${(wall / 1000).toFixed(3)} s; not the model: ${((wall - modelMs) / 1000).toFixed(3)} s`,
  );
  for (const [stage, u] of Object.entries(timings.usageByStage) as [
    string,
    { calls: number; prompt_tokens: number; completion_tokens: number },
  ][]) {
    console.log(
      `  ${stage.padEnd(7)} ${u.calls} call(s), ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens`,
    );
  }
}

const cache = mkdtempSync(join(tmpdir(), "auto-fix-bench-cache-"));
console.log(`repository: ${repo}`);
await once("cold index cache", cache);
await once("warm index cache", cache);
