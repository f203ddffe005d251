import { inertForTerminal } from "../core/terminal-text.ts";
import { formatUsd, type UsageMeter } from "../model/usage.ts";
import { createProgress, describeRunning, type Progress } from "../contract/progress.ts";
import type { CliIO } from "./main.ts";

/** Redraws at most this often on a terminal. */
const REDRAW_MS = 100;

/**
 * One status line on a terminal, rewritten in place and cut to the terminal's width; `clear()` removes it
 * before other output. The text is made inert: only this line's own cursor controls reach the terminal.
 */
export function statusLine(io: Pick<CliIO, "stderrRaw">, columns = process.stderr.columns || 100) {
  let shown = "";
  let last = 0;
  return {
    update(text: string, force = false): void {
      const now = Date.now();
      if (!force && now - last < REDRAW_MS) return;
      last = now;
      const line = inertForTerminal(text)
        .replace(/\s+/g, " ")
        .slice(0, Math.max(10, columns - 1));
      if (line === shown) return;
      shown = line;
      io.stderrRaw(`\r\x1b[K${line}`);
    },
    clear(): void {
      if (shown) io.stderrRaw("\r\x1b[K");
      shown = "";
    },
  };
}

/**
 * Progress of `auto-fix index`: on a terminal "indexing: N of M files"; otherwise a plain line at most
 * every few seconds (a quick index prints none).
 */
export function indexProgress(io: CliIO): {
  onProgress: (p: { found: number; done: number }) => void;
  finish: () => void;
} {
  if (io.isTTY) {
    const line = statusLine(io);
    return {
      onProgress: ({ found, done }) => line.update(`auto-fix index: ${done} of ${found} files indexed`),
      finish: () => line.clear(),
    };
  }
  let lastPlain = Date.now();
  return {
    onProgress: ({ found, done }) => {
      const now = Date.now();
      if (now - lastPlain < 5000) return;
      lastPlain = now;
      io.stderr(`auto-fix index: ${done} of ${found} files indexed\n`);
    },
    finish: () => {},
  };
}

/**
 * Progress of `auto-fix fix`. On a terminal one line: stage, step, model calls, tokens and cost so far.
 * Otherwise the pipeline's plain lines (`auto-fix: <stage> (<detail>)`), which the GitHub App follows.
 */
export interface FixProgress extends Progress {
  /** A line printed above the status line (a retry). */
  log(line: string): void;
  /** Files indexed so far, shown on a terminal only. */
  files(p: { found: number; done: number }): void;
}

export function fixProgress(io: CliIO, meter: UsageMeter): FixProgress {
  if (!io.isTTY) {
    return { ...createProgress(io.stderr, false), log: (l) => io.stderr(`${l}\n`), files() {} };
  }
  const line = statusLine(io);
  let stage = "";
  let detail = "";
  let run = "";
  const counts = () => {
    const t = meter.totals();
    const tokens = t.prompt_tokens + t.completion_tokens;
    const tk = tokens >= 10_000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
    return `${meter.calls()} model calls · ${tk} tokens · ${formatUsd(t.cost_usd)}`;
  };
  const text = () =>
    `auto-fix: ${stage}${detail ? ` · ${detail}` : ""}${run ? ` · ${run}` : ""} · ${counts()}`;
  return {
    stage(name, d) {
      stage = name;
      detail = d ?? "";
      line.update(text(), true);
    },
    detail(d) {
      detail = d;
      line.update(text(), true);
    },
    usage() {
      line.update(text());
    },
    running(now) {
      run = now ? describeRunning(now) : "";
      line.update(text(), true);
    },
    milestone(name, note) {
      // Finished stages stay on screen above the status line.
      line.clear();
      io.stderr(`auto-fix: ${name}${note ? ` (${note.replace(/\s+/g, " ").trim().slice(0, 200)})` : ""}\n`);
      line.update(text(), true);
    },
    files({ found, done }) {
      detail = `${done} of ${found} files`;
      line.update(text(), done === found);
    },
    log(l) {
      line.clear();
      io.stderr(`${l}\n`);
      line.update(text(), true);
    },
    done() {
      line.clear();
      io.stderr(`auto-fix: done · ${counts()}\n`);
    },
  };
}
