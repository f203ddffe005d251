import type { RunnerName } from "../names.ts";
import { RUNNERS } from "../registry.ts";

const SHELL_SYNTAX = /[;&|<>$`'"\\(){}*?!#~\n]/;

/**
 * The runner a test command hands selected tests to, when it can be targeted: a plain command (no shell
 * syntax) that starts a runner however it is spelled (`python -m pytest`, `py.test`, `npx mocha`,
 * `node node_modules/mocha/bin/_mocha`, `./gradlew test`), the runner named earliest in it; or a
 * package manager's script (`npm test`) when the repository's files show a runner that takes the
 * script's extra words (`framework`). Null: it cannot be targeted (a script of another kind, a
 * Makefile, a pipeline); validation then runs the whole suite and says why.
 */
export function runnerOfCommand(cmd: string, framework: string): RunnerName | null {
  if (SHELL_SYNTAX.test(cmd)) return null;
  const words = cmd.trim().split(/\s+/);
  let best: { name: RunnerName; at: number } | null = null;
  for (const r of RUNNERS) {
    const at = r.namedAt(words);
    if (at >= 0 && (best === null || at < best.at)) best = { name: r.name, at };
  }
  if (best) return best.name;
  if (/^(npm|pnpm|yarn)$/.test(words[0] ?? "")) {
    const shown = RUNNERS.find((r) => r.name === framework);
    if (shown?.takesScriptArgs) return shown.name;
  }
  return null;
}

/** The runner a single program word starts by itself (`mocha`, `_mocha`, `node_modules/.bin/jest`), or null. */
export function runnerOfProgram(word: string): RunnerName | null {
  return RUNNERS.find((r) => r.takesScriptArgs && r.namedAt([word]) === 0)?.name ?? null;
}

/** Words that join or wrap the commands of a shell line (`cd x && pytest`, `(go test ./...)`). */
const SHELL_JOINS = /&&|\|\||[;|&()\n]/;
/** A leading `NAME=value` word or `env`: it sets the environment of the command after it. */
const ENV_WORD = /^(env|[A-Za-z_]\w*=.*)$/;

/**
 * The runner a test command starts, however it is written (shell syntax allowed: `cd api && python -m
 * pytest -q`, `CI=1 npx jest`): each of its commands is read in turn, by every runner's own spellings,
 * and the first one that starts a runner names it (the runner named earliest in it). Null: no command
 * of it starts a runner auto-fix knows (`make test`, `npm test`, `tox`).
 */
export function runnerNamedIn(cmd: string): RunnerName | null {
  for (const part of cmd.split(SHELL_JOINS)) {
    const words = part
      .replace(/["'`\\]/g, "")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    while (words.length > 1 && ENV_WORD.test(words[0]!)) words.shift();
    let best: { name: RunnerName; at: number } | null = null;
    for (const r of RUNNERS) {
      const at = r.namedAt(words);
      if (at >= 0 && (best === null || at < best.at)) best = { name: r.name, at };
    }
    if (best) return best.name;
  }
  return null;
}
