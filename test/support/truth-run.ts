/**
 * One whole issue run of the app, end to end with real parts, for the tests of what a run may claim:
 * a real git repository made from the files given, `auto-fix issue --dry-run` (admission, clone over
 * HTTP on 127.0.0.1, the pipeline child, the real sandbox and real test runners, commit, pull request
 * body and status comment written to disk) and the scripted model playing every agent.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { FixResult } from "../../src/contract/result.ts";
import { fence, promptKind, verdict } from "../review/helpers.ts";
import { agentScript, patchAnswer, searchSays } from "./agent-script.ts";
import { type ScriptedModel, type ScriptHandler, startScriptedModel } from "./scripted-model.ts";
import { tempDir } from "./temp.ts";

export interface TruthCase {
  /** The repository's files (path → text); `.github/auto-fix.yml` names its test command. */
  files: Record<string, string>;
  /** Where the search says the bug is. */
  location: { file: string; method: string };
  /** The model's patch: one replacement in one file. */
  patch: { file: string; original: string; patched: string };
  /** The patches the model writes when asked for another (after a review or validation rejected one). */
  rewrites?: { file: string; original: string; patched: string }[];
  /**
   * The reproducer script the model writes, in the language of the reproducer's runtime (detected from
   * the repository, or the `reproducer` setting of `.github/auto-fix.yml`): Python (`python3
   * reproducer.py`) unless `reproducerLanguage` names another (`javascript` for `node reproducer.mjs`,
   * `go` for `go run ./reproducer`).
   */
  reproducer: string;
  /** The fence language of the model's reproducer (default `python`). */
  reproducerLanguage?: string;
  /** The operator's extra environment (`AUTO_FIX_MAX_*` ceilings, ...). */
  env?: Record<string, string>;
}

export interface TruthRun {
  code: number;
  stdout: string;
  stderr: string;
  result: FixResult;
  status: string;
  body: string | null;
  /** The run's report.md (beside its result.json), or "" when there is none. */
  report: string;
  model: ScriptedModel;
}

const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Dev",
      GIT_AUTHOR_EMAIL: "dev@example.com",
      GIT_COMMITTER_NAME: "Dev",
      GIT_COMMITTER_EMAIL: "dev@example.com",
    },
  });

/** Every `result.json` under a folder (the pipeline child's), newest last. */
function findResults(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (name === "result.json") out.push(p);
    }
  };
  walk(dir);
  return out.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
}

export async function truthRun(c: TruthCase): Promise<TruthRun> {
  const work = tempDir("auto-fix-truth-");
  const repo = join(work, "project");
  for (const [rel, text] of Object.entries(c.files)) {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), text);
  }
  git(repo, ["init", "-q", "-b", "main"]);
  git(repo, ["add", "-A"]);
  git(repo, ["commit", "-q", "-m", "Initial commit"]);
  const issueFile = join(work, "issue.md");
  writeFileSync(
    issueFile,
    `# ${c.location.method} is wrong\n\nCalling ${c.location.method} gives the wrong answer.\n`,
  );
  const agents = agentScript({
    search: [
      searchSays("Found it.", {
        bug_locations: [{ ...c.location, intended_behavior: "Return the right answer." }],
      }),
    ],
    // A model that keeps its answer unless told otherwise: every rewrite asked for gets the same patch back.
    patch: [c.patch, ...(c.rewrites ?? Array.from({ length: 7 }, () => c.patch))].map((p) =>
      patchAnswer(p.file, p.original, p.patched),
    ),
  });
  const script: ScriptHandler = (req, i) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write" || kind === "repro-feedback" || kind === "rewrite-test")
      return fence(c.reproducerLanguage ?? "python", c.reproducer);
    // The reviewer is the same model: it approves whatever it is shown.
    if (kind === "review" || kind === "review-retry") return verdict("yes", "yes");
    return agents(req, i);
  };
  const model = await startScriptedModel(script);
  let stdout = "";
  let stderr = "";
  try {
    const out = join(work, "dry");
    const code = await main(["issue", repo, "--issue", issueFile, "--dry-run", out, "--json"], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {
        PATH: process.env.PATH,
        HOME: work,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: "test-key",
        AUTO_FIX_MODEL: "scripted-model",
        AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
        AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0",
        AUTO_FIX_CACHE_DIR: join(work, "cache"),
        ...c.env,
      },
      cwd: work,
      isTTY: false,
    });
    const printed = JSON.parse(stdout) as { statusComment: string; pullBody: string | null };
    const resultPath = findResults(out).at(-1);
    if (!resultPath) throw new Error(`no result.json under ${out}\n${stdout}\n${stderr}`);
    return {
      code,
      stdout,
      stderr,
      result: JSON.parse(readFileSync(resultPath, "utf8")) as FixResult,
      status: readFileSync(printed.statusComment, "utf8"),
      body: printed.pullBody ? readFileSync(printed.pullBody, "utf8") : null,
      report: (() => {
        try {
          return readFileSync(join(dirname(resultPath), "report.md"), "utf8");
        } catch {
          return "";
        }
      })(),
      model,
    };
  } finally {
    await model.close();
  }
}

/** The status comment's line for the repository's tests. */
export const testsLine = (status: string): string =>
  status
    .split("\n")
    .find((l) => /Ran the repository's tests|Tests could not be run|cannot be trusted/.test(l)) ?? "";
