import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Issue } from "../../src/agents/issue-text.ts";
import { loadRepoConfig } from "../../src/config/index.ts";
import type { ModelConfig } from "../../src/model/config.ts";
import type { Budget } from "../../src/model/usage.ts";
import { openCode } from "../../src/pipeline/open-code.ts";
import { runFix } from "../../src/pipeline/run-fix.ts";
import type { FixOptions, FixResult } from "../../src/contract/pipeline.ts";
import { type AgentScript, agentScript } from "./agent-script.ts";
import { makeTestModel, type TestModel } from "./model-harness.ts";
import { type ScriptedModel, type ScriptHandler, startScriptedModel } from "./scripted-model.ts";
import { tempDir } from "./temp.ts";

export const FIX_FIXTURES = fileURLToPath(new URL("../fixtures/fix/", import.meta.url));

/** A digest of every file (path + bytes) under `dir`: equal before and after means untouched. */
export function treeDigest(dir: string): string {
  const h = createHash("sha256");
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = statSync(full);
      if (st.isDirectory()) walk(full, r);
      else h.update(`${r}\0`).update(readFileSync(full)).update("\0");
    }
  };
  walk(dir, "");
  return h.digest("hex");
}

export interface FixRun {
  result: FixResult;
  server: ScriptedModel;
  model: TestModel;
  out: string;
  script: ReturnType<typeof agentScript> | null;
}

/** Runs the whole pipeline on `repo` against a scripted model (agents or a raw handler). */
export async function runScriptedFix(
  repo: string,
  issue: Issue,
  script: AgentScript | ScriptHandler,
  opts: {
    options?: Partial<FixOptions>;
    config?: Partial<ModelConfig>;
    budget?: Budget;
    /** Unusable answers in a row before the run stops (default 3, as in production). */
    maxUnusable?: number;
  } = {},
): Promise<FixRun> {
  const s = typeof script === "function" ? null : agentScript(script);
  const server = await startScriptedModel(s ?? (script as ScriptHandler));
  const out = tempDir("auto-fix-out-");
  const model = makeTestModel(server.baseURL, {
    dir: out,
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.budget ? { budget: opts.budget } : {}),
    ...(opts.maxUnusable !== undefined ? { maxUnusable: opts.maxUnusable } : {}),
  });
  try {
    const result = await runFix(
      { repo, issue, out, ...opts.options },
      {
        model: model.model,
        meter: model.meter,
        recorder: model.recorder,
        config: loadRepoConfig(
          repo,
          opts.options?.testCmd !== undefined ? { testCommand: opts.options.testCmd } : {},
        ),
        sandbox: { port: null, problem: "these runs have no stage that runs the repository's code" },
        openCode: (workdir) => openCode(workdir, { cacheDir: null }),
      },
    );
    return { result, server, model, out, script: s };
  } finally {
    await server.close();
  }
}

export const read = (dir: string, rel: string) => readFileSync(join(dir, rel), "utf8");
export const tmp = (prefix: string) => tempDir(prefix);
