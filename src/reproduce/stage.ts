import { readdirSync } from "node:fs";
import type { RepoConfig } from "../config/index.ts";
import { execReport } from "../contract/exec-report.ts";
import { stopsRun } from "../contract/failures.ts";
import type { ReproduceOutcome } from "../contract/pipeline.ts";
import type { ReproducerReport } from "../contract/result.ts";
import type { ModelPort } from "../model/types.ts";
import { relativizeSandboxPaths, type SandboxPort, truncateMiddle } from "../sandbox/index.ts";
import { type Reproduction, reproduceIssue } from "./reproducer.ts";

/** How much of the reproducer's stderr the search agent is shown as a lead. */
const REPRO_LEAD_CHARS = 6000;

/** A tree the stage may run in; disposed when done. */
export interface TreeCopy {
  dir: string;
  dispose(): Promise<void>;
}

export interface ReproduceStageInput {
  model: ModelPort;
  /** The run's sandbox; null when none could be made (nothing from the repository runs). */
  sandbox: SandboxPort | null;
  config: RepoConfig;
  /** A fresh copy of the set-up, unpatched work tree; null when none could be prepared. */
  pristine: (() => Promise<TreeCopy>) | null;
  /** The issue, sanitised and fenced as data. */
  issue: string;
  /** What went wrong before the stage (no sandbox, a failed setup step), for its summary. */
  problem: string | null;
  /** The runtimes' versions as the sandbox runs them, one line (absent or "": not known). */
  runtime?: string;
  record: (name: string, text: string) => void;
  recordJson: (name: string, value: unknown) => void;
}

export interface ReproduceStageResult {
  outcome: ReproduceOutcome;
  /** The reproduction (script, runs, conversation) that the review stage continues; null when none ran. */
  reproduction: Reproduction | null;
}

const topLevelOf = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith("."))
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort();
  } catch {
    return []; // an empty layout is fine
  }
};

/**
 * The reproduce stage (seed 000): asks whether the issue has a reproducible example, has the model write
 * a script that fails on the bug, and runs it in the sandbox on the unpatched tree. Never throws for
 * stage trouble (it ends in an outcome that says what happened); errors that stop the run go through.
 */
export async function reproduceStage(input: ReproduceStageInput): Promise<ReproduceStageResult> {
  const { sandbox, pristine, config } = input;
  /** The stage as the result reports it, before any patch ran against the script. */
  const report = (
    status: ReproducerReport["status"],
    summary: string,
    rep: Reproduction | null,
  ): ReproducerReport => ({
    status,
    summary,
    path: config.reproducer.file,
    command: config.reproducer.command,
    script: rep?.script ?? null,
    attempts: rep?.attempts.length ?? 0,
    before: rep?.run ? execReport(rep.run.exec) : null,
    after: null,
  });
  if (!sandbox || !pristine) {
    const summary = input.problem ?? "no sandbox";
    return {
      outcome: { reproduced: false, lead: null, summary, data: report("error", summary, null) },
      reproduction: null,
    };
  }
  try {
    const tree = await pristine();
    let rep: Reproduction;
    try {
      rep = await reproduceIssue(
        { model: input.model, sandbox, config, record: input.record },
        {
          issue: input.issue,
          workdir: tree.dir,
          topLevel: topLevelOf(tree.dir),
          ...(input.runtime ? { runtime: input.runtime } : {}),
        },
      );
    } finally {
      await tree.dispose();
    }
    const summary = input.problem ? `${rep.summary} (${input.problem})` : rep.summary;
    const data = report(rep.status, summary, rep);
    input.recordJson("reproduce/result.json", data);
    return {
      outcome: {
        reproduced: rep.status === "reproduced",
        lead: rep.lead ? truncateMiddle(relativizeSandboxPaths(rep.lead), REPRO_LEAD_CHARS) : null,
        summary,
        data,
      },
      reproduction: rep,
    };
  } catch (err) {
    if (stopsRun(err)) throw err;
    input.record("reproduce/error.txt", String((err as Error).stack ?? err));
    const summary = `the reproduce stage failed: ${(err as Error).message}`;
    return {
      outcome: { reproduced: false, lead: null, summary, data: report("error", summary, null) },
      reproduction: null,
    };
  }
}
