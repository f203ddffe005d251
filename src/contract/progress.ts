import { formatUsd, type UsageTotals } from "../model/usage.ts";

/** Where the pipeline reports what it is doing. */
export interface Progress {
  stage(name: string, detail?: string): void;
  detail(text: string): void;
  usage(totals: UsageTotals): void;
  /**
   * A stage finished with a result worth showing (`indexed`, `reproduced`, `located`, `patched`,
   * `reviewed`, `validated`). Plain output prints `auto-fix: <name> (<note>)`; the GitHub App reads these
   * lines, and the stage-start lines `auto-fix: <stage> (<detail>)`, to update its status comment.
   */
  milestone(name: string, note?: string): void;
  /** The sandboxed command running now and for how long (null: none runs); called about every second. */
  running?(now: RunningCommand | null): void;
  done(): void;
}

/** A sandboxed command in progress: what it runs, for how long, and how many others run beside it. */
export interface RunningCommand {
  command: string;
  seconds: number;
  others: number;
}

/** `running \`make test\` (12 s so far, 1 more beside it)`: how progress shows a running command. */
export function describeRunning(r: RunningCommand): string {
  const parts = [
    ...(r.seconds >= 1 ? [`${r.seconds} s so far`] : []),
    ...(r.others > 0 ? [`${r.others} more beside it`] : []),
  ];
  return `running \`${r.command}\`${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`;
}

/** A plain (not terminal) progress prints a running command when it starts and then every this often. */
export const PLAIN_RUNNING_EVERY_S = 15;

export const silentProgress: Progress = { stage() {}, detail() {}, usage() {}, milestone() {}, done() {} };

const fmtTokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/**
 * A progress display: on a terminal one status line rewritten in place (stage, round, tokens so far);
 * otherwise plain lines, one per stage or step.
 */
export function createProgress(write: (text: string) => void, tty: boolean): Progress {
  let stage = "";
  let detail = "";
  let totals: UsageTotals = { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
  let lastLine = "";
  let run = "";
  let plainShown: { command: string; seconds: number } | null = null;
  const line = () => {
    const tokens = totals.prompt_tokens + totals.completion_tokens;
    return `auto-fix: ${stage}${detail ? ` · ${detail}` : ""}${run ? ` · ${run}` : ""} · ${fmtTokens(tokens)} tokens · ${formatUsd(totals.cost_usd)}`;
  };
  const render = () => {
    const l = line();
    if (l === lastLine) return;
    lastLine = l;
    if (tty) write(`\r\x1b[K${l}`);
  };
  return {
    stage(name, d) {
      stage = name;
      detail = d ?? "";
      if (tty) render();
      else write(`auto-fix: ${name}${detail ? ` (${detail})` : ""}\n`);
    },
    detail(text) {
      detail = text;
      if (tty) render();
      else write(`auto-fix: ${stage}: ${text}\n`);
    },
    milestone(name, note) {
      if (!tty) write(`auto-fix: ${name}${note ? ` (${note.replace(/\s+/g, " ").trim()})` : ""}\n`);
    },
    usage(t) {
      totals = t;
      if (tty) render();
    },
    running(now) {
      run = now ? describeRunning(now) : "";
      if (tty) return render();
      if (!now) {
        plainShown = null;
        return;
      }
      const due =
        plainShown?.command !== now.command || now.seconds - plainShown.seconds >= PLAIN_RUNNING_EVERY_S;
      if (!due) return;
      plainShown = { command: now.command, seconds: now.seconds };
      write(`auto-fix: ${stage}: ${run}\n`);
    },
    done() {
      if (tty) write(`\r\x1b[K${line()}\n`);
      else {
        const tokens = totals.prompt_tokens + totals.completion_tokens;
        write(`auto-fix: done · ${tokens} tokens · ${formatUsd(totals.cost_usd)}\n`);
      }
    },
  };
}
