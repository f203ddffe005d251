import { linearRegExp } from "../core/linear-regex.ts";
import { reproducerForRuntime, reproducerPrompt } from "../languages/index.ts";
import { z } from "zod";
import type { RepoConfig } from "../config/index.ts";
import { projectLine, projectVersion } from "../config/project-version.ts";
import { stopsRun } from "../contract/failures.ts";
import { installsRemovedSentence, removeInstalls } from "../core/dependency-installs.ts";
import { openTree } from "../core/tree-fs.ts";
import { renderReviewPrompt } from "../prompts/review.ts";
import { describeEnding, isLoadFailure } from "../contract/reproducer-evidence.ts";
import { formatExecForModel, type SandboxPort } from "../sandbox/index.ts";
import { runScript, type ScriptRun } from "../sandbox/script-run.ts";
import { extractJson, fencedBlocks } from "../model/json.ts";
import type { ChatMessage, ModelPort } from "../model/types.ts";

/** One run of a reproducer script: what ran, how it ended as the runtime reported it, the lines it ran. */
export interface ReproRun extends ScriptRun {
  script: string;
  reproduced: boolean;
  /** Why it counts as reproduced or not, in words for the model and the report. */
  reason: string;
  /** Dependency installs taken out of the script before it ran (the network is off): what they were. */
  removedInstalls?: string[];
}

export interface Reproduction {
  status: "reproduced" | "not-reproduced" | "no-example" | "error";
  /** The reproducing script (or the last one tried). */
  script: string | null;
  run: ReproRun | null;
  attempts: ReproRun[];
  /** The reproducer's stderr, shown to the search agent as a lead. */
  lead: string | null;
  summary: string;
  /** The conversation that wrote the script (continued when the reviewer asks for a new one). */
  messages: ChatMessage[];
}

export interface ReproducerDeps {
  model: ModelPort;
  sandbox: SandboxPort;
  config: RepoConfig;
  /** Artifact sink (file name relative to the run's folder). */
  record?: (name: string, text: string) => void;
  signal?: AbortSignal;
}

/** How much of the end of stderr the reproduction pattern is matched against (where a traceback ends). */
export const PATTERN_TAIL_CHARS = 256 * 1024;

/**
 * "Reproduced" = the script ran and ended in an uncaught exception whose type and message, as the runtime
 * reported them (`AssertionError: expected 5, got -1`), match the pattern (default AssertionError); no
 * sandbox limit. A script that does not parse, compile or import never reproduces anything, whatever it
 * printed, and neither does an assertion raised while handling an import or name failure. Only for a
 * runtime whose ending cannot be told (`command`, a custom command) is the pattern matched against the
 * last PATTERN_TAIL_CHARS of stderr. The pattern comes from the repository's configuration and the text
 * from its code: it is matched by the linear-time engine, so neither can make the host hang.
 */
export function judgeReproduction(
  run: Pick<ScriptRun, "exec" | "ending" | "told">,
  pattern: string,
): { reproduced: boolean; reason: string } {
  const compiled = linearRegExp(pattern);
  if (!compiled.ok)
    return { reproduced: false, reason: `reproducer.pattern in the configuration: ${compiled.message}` };
  const re = compiled.re;
  const { exec, ending } = run;
  if (exec.limit !== null)
    return { reproduced: false, reason: `the script hit the sandbox's ${exec.limit} limit` };
  if (exec.exitCode === 0)
    return { reproduced: false, reason: "the script exited with status 0 (no failure)" };
  const status = `exit ${exec.exitCode ?? exec.signal}`;
  if (run.told === "output") {
    const stderr =
      exec.stderr.length > PATTERN_TAIL_CHARS ? exec.stderr.slice(-PATTERN_TAIL_CHARS) : exec.stderr;
    const how = ending.detail ? ` (${ending.detail}; judged by its output)` : "";
    if (!re.test(stderr))
      return {
        reproduced: false,
        reason: `the script failed (${status}) but stderr shows no ${pattern}${how}`,
      };
    return { reproduced: true, reason: `the script failed with ${pattern} (${status})${how}` };
  }
  if (
    ending.how === "does-not-parse" ||
    ending.how === "does-not-compile" ||
    ending.how === "does-not-import"
  )
    return { reproduced: false, reason: `did not reproduce: ${describeEnding(ending)}` };
  if (ending.how === "unknown")
    return {
      reproduced: false,
      reason: `did not reproduce: the script failed (${status}) but ${describeEnding(ending)}`,
    };
  if (ending.how === "exit")
    return {
      reproduced: false,
      reason: `did not reproduce: the script exited with status ${exec.exitCode} without an uncaught exception (no failed assertion)`,
    };
  const thrown = describeEnding(ending);
  const missing = ending.chain.find((t) => isLoadFailure(t));
  if (missing)
    return {
      reproduced: false,
      reason: `did not reproduce: ${ending.type} was raised while handling ${missing}: the script fails because something is missing, not because a check failed`,
    };
  if (!re.test(`${ending.type ?? ""}: ${ending.message}`))
    return {
      reproduced: false,
      reason: `did not reproduce: the script failed with ${thrown} (${status}), not ${pattern}`,
    };
  return { reproduced: true, reason: `the script failed with ${thrown} (${status})` };
}

/**
 * Writes the script into `workdir` (a private copy, in which sandboxed code may already have run)
 * through tree-fs: a link at the script's path is replaced by the script, never written through, and a
 * link on the way to it is refused (TreeFsError). Then runs it in the sandbox, network off: a dependency
 * install in it (pip, npm, go get, ...) is taken out first and never runs (`removedInstalls`), and the
 * run's `script` is the script as it ran.
 */
export async function runReproducer(
  sandbox: SandboxPort,
  workdir: string,
  config: RepoConfig,
  script: string,
  signal?: AbortSignal,
): Promise<ReproRun> {
  const stripped = removeInstalls(script, config.reproducer.runtime);
  script = stripped.script;
  openTree(workdir).write(config.reproducer.file, script.endsWith("\n") ? script : `${script}\n`, {
    onLink: "replace",
  });
  const ran = await runScript(sandbox, {
    workdir,
    runtime: config.reproducer.runtime,
    command: config.reproducer.command,
    file: config.reproducer.file,
    timeoutMs: config.timeouts.reproducerMs,
    memoryMb: config.sandbox.memoryMb,
    maxProcesses: config.sandbox.maxProcesses,
    ...(signal ? { signal } : {}),
  });
  return {
    script,
    ...ran,
    ...judgeReproduction(ran, config.reproducer.pattern),
    ...(stripped.removed.length > 0 ? { removedInstalls: stripped.removed } : {}),
  };
}

/** The script in a model's answer: the longest fenced block in the runtime's language, else the longest. */
export function extractScript(answer: string, runtime: string): string | null {
  const blocks = fencedBlocks(answer).filter((b) => b.code.trim() !== "");
  if (blocks.length === 0) return null;
  const tags = reproducerForRuntime(runtime)?.prompt.tags ?? [];
  const tagged = blocks.filter((b) => tags.includes(b.lang));
  const pool = tagged.length > 0 ? tagged : blocks;
  return pool.reduce((a, b) => (b.code.length > a.code.length ? b : a)).code;
}

const hasExampleSchema = z.object({
  "has-reproducible-example": z.preprocess(
    (v) => (typeof v === "string" ? /^(true|yes)$/i.test(v.trim()) : v),
    z.boolean(),
  ),
});

/** Asks whether the issue has a reproducible example; null when the model gave no usable answer twice. */
export async function hasReproducibleExample(
  model: ModelPort,
  issue: string,
  signal?: AbortSignal,
): Promise<boolean | null> {
  const messages: ChatMessage[] = [
    { role: "system", content: renderReviewPrompt("reproducer-system", {}) },
    { role: "user", content: renderReviewPrompt("reproducer-has-example", { issue }) },
  ];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const answer = await model.chat(messages, {
      stage: "reproduce",
      json: true,
      label: `has-example-${attempt}`,
      ...(signal ? { signal } : {}),
    });
    const parsed = extractJson(answer.content, hasExampleSchema);
    if (parsed.ok) return parsed.value["has-reproducible-example"];
    messages.push(
      { role: "assistant", content: answer.content },
      {
        role: "user",
        content:
          'Answer with exactly {"has-reproducible-example": true} or {"has-reproducible-example": false}.',
      },
    );
  }
  return null;
}

/**
 * Has the model write scripts until one reproduces the issue in `workdir` (a pristine private copy), up to
 * `config.reproducer.attempts`; each failure goes back with the execution output.
 * `messages` continues an earlier conversation (the reviewer's test advice is already its last message).
 */
export async function writeUntilReproduced(
  deps: ReproducerDeps,
  workdir: string,
  messages: ChatMessage[],
  tag: string,
): Promise<Reproduction> {
  const { config } = deps;
  const max = config.reproducer.attempts;
  const attempts: ReproRun[] = [];
  for (let attempt = 1; attempt <= max; attempt++) {
    const answer = await deps.model.chat(messages, {
      stage: "reproduce",
      label: `${tag}-${attempt}`,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    messages.push({ role: "assistant", content: answer.content });
    const script = extractScript(answer.content, config.reproducer.runtime);
    if (script === null) {
      messages.push({
        role: "user",
        content:
          "Your answer had no fenced code block. Answer with the complete script in one fenced code block.",
      });
      continue;
    }
    const run = await runReproducer(deps.sandbox, workdir, config, script, deps.signal);
    attempts.push(run);
    const installs = run.removedInstalls ? installsRemovedSentence(run.removedInstalls) : "";
    deps.record?.(
      `reproduce/${tag}-${attempt}.md`,
      `# Reproducer ${tag} ${attempt}\n\n${run.reason}${installs ? `\n\n${installs}` : ""}\n\n\`\`\`\n${run.script}\n\`\`\`\n\n${formatExecForModel(run.exec)}\n`,
    );
    if (run.reproduced) {
      // A later rewrite continues this conversation: it knows its installs did not run.
      if (installs) messages.push({ role: "user", content: installs });
      return {
        status: "reproduced",
        script: run.script,
        run,
        attempts,
        lead: run.exec.stderr.trim() || null,
        summary: `reproduced on attempt ${attempt}: ${run.reason}`,
        messages,
      };
    }
    messages.push({
      role: "user",
      content: renderReviewPrompt("reproducer-feedback", {
        attempt,
        max,
        reason: run.reason,
        installs,
        output: formatExecForModel(run.exec),
      }),
    });
  }
  const last = attempts.at(-1) ?? null;
  return {
    status: "not-reproduced",
    script: last?.script ?? null,
    run: last,
    attempts,
    lead: null,
    summary: `not reproduced after ${max} attempt(s)${last ? `: ${last.reason}` : ": no script was written"}`,
    messages,
  };
}

/** Top of the repository for the prompt: its first-level entries. */
function layoutOf(entries: readonly string[]): string {
  return entries.slice(0, 60).join("\n");
}

/**
 * Stage 6: does the issue have a reproducible example; if so, write and run a reproducer before any patch.
 * Never throws for model trouble (a budget or abort still stops the run): a failure is a status.
 */
export async function reproduceIssue(
  deps: ReproducerDeps,
  input: { issue: string; workdir: string; topLevel?: readonly string[]; runtime?: string },
): Promise<Reproduction> {
  const empty = (status: Reproduction["status"], summary: string): Reproduction => ({
    status,
    script: null,
    run: null,
    attempts: [],
    lead: null,
    summary,
    messages: [],
  });
  // A repository in no language auto-fix reads: no script is guessed (no model call, nothing runs).
  if (deps.config.reproducer.runtime === "none")
    return empty(
      "error",
      "no reproducer: the repository is in no language auto-fix reads, and .github/auto-fix.yml names no reproducer runtime and command",
    );
  try {
    const has = await hasReproducibleExample(deps.model, input.issue, deps.signal);
    if (has === false) return empty("no-example", "the issue has no reproducible example");
    const lang = reproducerPrompt(deps.config.language, deps.config.reproducer.runtime);
    const messages: ChatMessage[] = [
      { role: "system", content: renderReviewPrompt("reproducer-system", {}) },
      {
        role: "user",
        content: renderReviewPrompt("reproducer-write", {
          issue: input.issue,
          language: lang.name,
          file: deps.config.reproducer.file,
          command: deps.config.reproducer.command,
          language_notes: lang.notes,
          layout: layoutOf(input.topLevel ?? []),
          // The version the script runs against: no guarding against other versions of the project's API.
          // And the runtime's, as the sandbox runs it.
          version: versionsSaid(projectLine(projectVersion(input.workdir)), input.runtime ?? ""),
        }),
      },
    ];
    const r = await writeUntilReproduced(deps, input.workdir, messages, "attempt");
    if (has === null) r.summary += " (the model never said whether the issue has an example; tried anyway)";
    return r;
  } catch (err) {
    if (stopsRun(err)) throw err;
    return empty("error", `the reproduce stage failed: ${(err as Error).message}`);
  }
}

/** The project's version and the runtime's, as the prompt says them ("" when neither is known). */
export function versionsSaid(project: string, runtime: string): string {
  const lines = [project, runtime].filter(Boolean);
  if (lines.length === 0) return "";
  return `${lines.join("\n")}\nWrite for ${lines.length === 1 ? "this version" : "these versions"} only.`;
}

/** The reviewer judged the script wrong: rewrite it with the advice, in the same conversation. */
export async function rewriteReproducer(
  deps: ReproducerDeps,
  previous: Reproduction,
  advice: { analysis: string; advice: string },
  workdir: string,
  round: number,
): Promise<Reproduction> {
  const messages: ChatMessage[] = [
    ...previous.messages,
    { role: "user", content: renderReviewPrompt("reproducer-rewrite", advice) },
  ];
  return writeUntilReproduced(deps, workdir, messages, `review-${round}`);
}
