import { readdirSync } from "node:fs";
import type { RepoConfig } from "../config/index.ts";
import { stopsRun } from "../contract/failures.ts";
import type { ReproduceOutcome } from "../contract/pipeline.ts";
import { relativizeSandboxPaths, type SandboxPort, truncateMiddle } from "../sandbox/index.ts";
import type { ChatModel } from "./model.ts";
import { type Reproduction, reproduceIssue } from "./reproducer.ts";

/** How much of the reproducer's stderr the search agent is shown as a lead. */
const REPRO_LEAD_CHARS = 6000;

/** A tree the stage may run in; disposed when done. */
export interface TreeCopy {
  dir: string;
  dispose(): Promise<void>;
}

export interface ReproduceStageInput {
  model: ChatModel;
  /** The run's sandbox; null when none could be made (nothing from the repository runs). */
  sandbox: SandboxPort | null;
  config: RepoConfig;
  /** A fresh copy of the set-up, unpatched work tree; null when none could be prepared. */
  pristine: (() => Promise<TreeCopy>) | null;
  /** The issue, sanitised and fenced as data. */
  issue: string;
  /** What went wrong before the stage (no sandbox, a failed setup step), for its summary. */
  problem: string | null;
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
  const { sandbox, pristine } = input;
  if (!sandbox || !pristine) {
    return {
      outcome: {
        reproduced: false,
        lead: null,
        summary: input.problem ?? "no sandbox",
        data: { status: "error" },
      },
      reproduction: null,
    };
  }
  try {
    const tree = await pristine();
    let rep: Reproduction;
    try {
      rep = await reproduceIssue(
        { model: input.model, sandbox, config: input.config, record: input.record },
        { issue: input.issue, workdir: tree.dir, topLevel: topLevelOf(tree.dir) },
      );
    } finally {
      await tree.dispose();
    }
    const data = {
      status: rep.status,
      path: input.config.reproducer.file,
      command: input.config.reproducer.command,
      script: rep.script,
      attempts: rep.attempts.length,
      before: rep.run
        ? {
            exitCode: rep.run.exec.exitCode,
            limit: rep.run.exec.limit,
            stdout: truncateMiddle(rep.run.exec.stdout, 4000),
            stderr: truncateMiddle(rep.run.exec.stderr, 4000),
          }
        : null,
    };
    input.recordJson("reproduce/result.json", { ...data, summary: rep.summary });
    return {
      outcome: {
        reproduced: rep.status === "reproduced",
        lead: rep.lead ? truncateMiddle(relativizeSandboxPaths(rep.lead), REPRO_LEAD_CHARS) : null,
        summary: input.problem ? `${rep.summary} (${input.problem})` : rep.summary,
        data,
      },
      reproduction: rep,
    };
  } catch (err) {
    if (stopsRun(err)) throw err;
    input.record("reproduce/error.txt", String((err as Error).stack ?? err));
    return {
      outcome: {
        reproduced: false,
        lead: null,
        summary: `the reproduce stage failed: ${(err as Error).message}`,
      },
      reproduction: null,
    };
  }
}
