import { openTree, TreeFsError } from "../core/tree-fs.ts";
import { runnerOfProgram } from "../runners/shared/command-spelling.ts";

/**
 * A package manager's script (`npm test`, `npm run test:unit`, `yarn test`, `pnpm run unit`) resolved to
 * the command it runs, read from `package.json` `scripts`: `"test": "node --test"` makes `npm test` the
 * command `node --test`, whose runner auto-fix can target and ask for per-test reports. A script that
 * runs another (`"test": "npm run unit"`) is followed a bounded number of times. `package.json` is
 * repository content: it is read through tree-fs, and a script with shell syntax, pre/post hooks, extra
 * arguments or a program other than `node` or a known runner is refused with the reason.
 */
export type ScriptResolution = { command: string; chain: string[] } | { reason: string };

/** Scripts followed at most (`test` → `test:unit` → …). */
export const MAX_SCRIPT_HOPS = 4;
const MAX_PACKAGE_JSON_BYTES = 1024 * 1024;
const SHELL_SYNTAX = /[;&|<>$`'"\\(){}*?!#~\n]/;
const SCRIPT_NAME = /^[\w:.@/-]{1,100}$/;
/** Whether a script's program is one of `node_modules/.bin` that starts a runner auto-fix knows (the runners say which). */
const runnerBin = (word: string): boolean => /^[\w.-]+$/.test(word) && runnerOfProgram(word) !== null;

/** The script a command names (`npm test` → `test`), or null when the command is not a script. */
export function scriptOfCommand(command: string): string | null {
  const w = command.trim().split(/\s+/);
  if (!/^(npm|pnpm|yarn)$/.test(w[0] ?? "")) return null;
  if (w.length === 2 && (w[1] === "test" || w[1] === "t")) return "test";
  if (w.length === 3 && (w[1] === "run" || w[1] === "run-script") && SCRIPT_NAME.test(w[2]!)) return w[2]!;
  // `yarn unit`, `pnpm unit`: a script name as the only word (npm has no such form).
  if (w.length === 2 && w[0] !== "npm" && SCRIPT_NAME.test(w[1]!) && !w[1]!.startsWith("-")) return w[1]!;
  return null;
}

function readScripts(root: string): { scripts: Record<string, unknown> } | { reason: string } {
  let text: string | null;
  try {
    const bytes = openTree(root).readIfExists("package.json", { maxBytes: MAX_PACKAGE_JSON_BYTES });
    text = bytes === null ? null : bytes.toString("utf8");
  } catch (err) {
    if (err instanceof TreeFsError) return { reason: `package.json cannot be read: ${err.message}` };
    throw err;
  }
  if (text === null) return { reason: "there is no package.json" };
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch {
    return { reason: "package.json is not valid JSON" };
  }
  const scripts = (pkg as { scripts?: unknown } | null)?.scripts;
  if (typeof scripts !== "object" || scripts === null || Array.isArray(scripts))
    return { reason: "package.json has no scripts" };
  return { scripts: scripts as Record<string, unknown> };
}

/** A script's text as a command auto-fix may run itself, or why it may not. */
function direct(name: string, script: string): string | { reason: string } {
  if (SHELL_SYNTAX.test(script))
    return { reason: `the script \`${name}\` (\`${script.slice(0, 200)}\`) uses shell syntax` };
  const words = script.trim().split(/\s+/);
  const first = words[0] ?? "";
  if (first === "node" || first.startsWith("node_modules/") || first.startsWith("./node_modules/"))
    return words.join(" ");
  if (first === "npx" && runnerBin(words[1] ?? "")) return words.join(" ");
  // npm puts node_modules/.bin first on the PATH of a script: the runner is started from there.
  if (runnerBin(first)) return [`node_modules/.bin/${first}`, ...words.slice(1)].join(" ");
  return {
    reason: `the script \`${name}\` starts \`${first.slice(0, 100)}\`, which is neither node nor a test runner auto-fix knows`,
  };
}

/**
 * The command a package-manager script runs (see `ScriptResolution`), or null when `command` names no
 * script.
 */
export function resolveScriptCommand(root: string, command: string): ScriptResolution | null {
  let name = scriptOfCommand(command);
  if (name === null) return null;
  const read = readScripts(root);
  if ("reason" in read) return read;
  const { scripts } = read;
  const chain: string[] = [];
  for (let hop = 0; hop <= MAX_SCRIPT_HOPS; hop++) {
    chain.push(name);
    const script = Object.hasOwn(scripts, name) ? scripts[name] : undefined;
    if (typeof script !== "string" || script.trim() === "")
      return { reason: `package.json has no script \`${name}\`` };
    for (const hook of [`pre${name}`, `post${name}`]) {
      if (Object.hasOwn(scripts, hook))
        return { reason: `the script \`${name}\` has a \`${hook}\` script that runs with it` };
    }
    const next = scriptOfCommand(script);
    if (next === null) {
      const resolved = direct(name, script);
      return typeof resolved === "string" ? { command: resolved, chain } : resolved;
    }
    if (chain.includes(next)) return { reason: `the script \`${next}\` runs itself` };
    name = next;
  }
  return { reason: `the script runs more than ${MAX_SCRIPT_HOPS} other scripts` };
}
