import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import type { ChatMessage, ChatOptions, ChatResult } from "./types.ts";
import { formatUsd } from "./usage.ts";

/**
 * Writes a run's artifacts (model calls, proxy JSON, patch attempts, ...) under one folder, as files a
 * person can read. Writes are synchronous so that nothing is lost when a run stops on an error.
 * `null` directory = a recorder that keeps nothing (for callers that do not want artifacts).
 */
export class ArtifactRecorder {
  readonly dir: string | null;
  private readonly written: string[] = [];

  constructor(dir: string | null) {
    this.dir = dir;
    if (dir) mkdirSync(dir, { recursive: true });
  }

  /** Writes `content` to `relPath` (folders created); returns the absolute path, or null without a dir. */
  write(relPath: string, content: string): string | null {
    if (!this.dir) return null;
    const safe = normalize(relPath).replace(/^(\.\.[/\\])+/, "");
    const full = join(this.dir, safe);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    if (!this.written.includes(safe)) this.written.push(safe);
    return full;
  }

  writeJson(relPath: string, value: unknown): string | null {
    return this.write(relPath, `${JSON.stringify(value, null, 2)}\n`);
  }

  /** Relative paths written so far, in order. */
  files(): string[] {
    return [...this.written];
  }

  /** Records one model call as `model-calls/NNN-<stage>[-label].md` (readable) and `.json` (exact). */
  recordCall(entry: {
    callId: number;
    opts: ChatOptions;
    model: string;
    messages: ChatMessage[];
    result?: ChatResult;
    error?: string;
    /** What the endpoint sent instead of a chat completion (a web page, plain text), kept as is. */
    answerBody?: string;
    /** One line per failed attempt that was retried. */
    retries?: string[];
    attempts: number;
    ms: number;
  }): void {
    if (!this.dir) return;
    const label = entry.opts.label ? `-${entry.opts.label.replace(/[^\w.-]+/g, "_")}` : "";
    const base = `model-calls/${String(entry.callId).padStart(3, "0")}-${entry.opts.stage}${label}`;
    const lines: string[] = [
      `# Model call ${entry.callId} (${entry.opts.stage}${entry.opts.label ? `, ${entry.opts.label}` : ""})`,
      "",
      `- model: ${entry.model}`,
      `- json mode: ${entry.opts.json ? "yes" : "no"}`,
      `- attempts: ${entry.attempts}`,
      `- time: ${(entry.ms / 1000).toFixed(2)} s`,
    ];
    if (entry.result) {
      const u = entry.result.usage;
      lines.push(
        `- tokens: ${u.prompt_tokens} prompt + ${u.completion_tokens} completion${u.estimated ? " (estimated)" : ""}`,
        `- cost: ${formatUsd(u.cost_usd, 6)}`,
        `- finish reason: ${entry.result.finishReason ?? "unknown"}`,
      );
      if (entry.result.trimmed > 0) lines.push(`- history trimmed: ${entry.result.trimmed} message(s)`);
    }
    if (entry.error) lines.push(`- error: ${entry.error}`);
    for (const r of entry.retries ?? []) lines.push(`- retried: ${r}`);
    if (entry.answerBody !== undefined) {
      this.write(`${base}.answer.txt`, entry.answerBody);
      lines.push(`- the endpoint's answer: ${base.slice("model-calls/".length)}.answer.txt`);
    }
    lines.push("");
    for (const m of entry.messages) lines.push(`## ${m.role}`, "", m.content, "");
    if (entry.result) {
      entry.result.texts.forEach((t, i) => {
        lines.push(
          entry.result && entry.result.texts.length > 1 ? `## response ${i + 1}` : "## response",
          "",
          t,
          "",
        );
      });
    }
    this.write(`${base}.md`, lines.join("\n"));
    this.writeJson(`${base}.json`, {
      callId: entry.callId,
      stage: entry.opts.stage,
      label: entry.opts.label ?? null,
      model: entry.model,
      json: entry.opts.json ?? false,
      attempts: entry.attempts,
      ms: entry.ms,
      messages: entry.messages,
      texts: entry.result?.texts ?? null,
      usage: entry.result?.usage ?? null,
      finishReason: entry.result?.finishReason ?? null,
      error: entry.error ?? null,
      retries: entry.retries ?? [],
    });
  }
}
