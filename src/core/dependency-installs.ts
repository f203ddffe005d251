/**
 * Dependency installs (pip, npm, yarn, pnpm, go get, apt, gem, bundle, cargo, ...) belong to the setup
 * step, the only one that runs with network. Every other command runs with the network off, where an
 * install can only fail slowly: these rules recognise one in a command line or in a script the model
 * wrote, so that it is taken out before anything runs.
 */

/** Installer invocations, matched on a command's words (quotes, commas and brackets already removed). */
const INSTALL_PATTERNS: readonly RegExp[] = [
  /(?:^|[\s/])pip(?:3(?:\.\d+)?)?\s+(?:\S+\s+)*?install\b/,
  /(?:^|[\s/])(?:easy_install|pipx\s+install)\b/,
  /(?:^|[\s/])uv\s+(?:pip\s+install|add|sync)\b/,
  /(?:^|[\s/])(?:poetry|pipenv)\s+(?:install|add|sync)\b/,
  /(?:^|[\s/])(?:conda|mamba|micromamba)\s+(?:install|create|env\s+create)\b/,
  /(?:^|[\s/])npm\s+(?:\S+\s+)*?(?:install|i|ci|add|isntall)\b/,
  /(?:^|[\s/])(?:yarn|pnpm|bun)\s+(?:\S+\s+)*?(?:install|add|i)\b/,
  /(?:^|[\s/])go\s+(?:get|install|mod\s+(?:download|tidy|vendor))\b/,
  /(?:^|[\s/])(?:apt|apt-get|aptitude)\s+(?:\S+\s+)*?(?:install|update|upgrade)\b/,
  /(?:^|[\s/])(?:apk\s+add|yum\s+install|dnf\s+install|brew\s+install|zypper\s+install)\b/,
  /(?:^|[\s/])(?:gem\s+install|bundle(?:r)?\s+(?:install|update|add))\b/,
  /(?:^|[\s/])cargo\s+(?:fetch|install|add|update)\b/,
  /(?:^|[\s/])composer\s+(?:install|require|update)\b/,
  /(?:^|[\s/])mvn\s+(?:\S+\s+)*?dependency:/,
];

/** The words of a command as an installer would see them: quotes, commas, brackets and `+` joins gone. */
function words(text: string): string {
  return text
    .replace(/sys\.executable|process\.execPath/g, "python")
    .replace(/["'`,()[\]{};+]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Whether a command line (or the words of a call that runs one) installs dependencies. */
export function isDependencyInstall(command: string): boolean {
  const w = ` ${words(command)}`;
  return INSTALL_PATTERNS.some((re) => re.test(w));
}

/** Separators of a shell command chain, kept when it is split. */
const CHAIN = /(\s*(?:&&|\|\||;|\n)\s*)/;

/**
 * A shell command split into the dependency installs it chains (`pip install -r requirements.txt &&
 * make test`) and what is left to run; `rest` is null when nothing else was in it.
 */
export function splitInstalls(command: string): { installs: string[]; rest: string | null } {
  const parts = command.split(CHAIN);
  const installs: string[] = [];
  const kept: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const part = parts[i]!.trim();
    if (part === "") continue;
    if (isDependencyInstall(part)) installs.push(part);
    else {
      if (kept.length > 0) kept.push((parts[i - 1] ?? "&&").trim() || ";");
      kept.push(part);
    }
  }
  if (installs.length === 0) return { installs, rest: command };
  return { installs, rest: kept.length > 0 ? kept.join(" ") : null };
}

/** How a language runs other programs: a line of a script that installs only counts when it runs one. */
const RUNS_A_PROGRAM =
  /\b(?:system|popen|check_call|check_output|run|call|Popen|spawn|spawnSync|exec|execSync|execFile|execFileSync|execa|Command|ProcessBuilder|shell_exec|passthru)\s*\(|\b(?:getRuntime|Command::new)\s*\(|^\s*[!%]/;

/** What replaces a removed line, per runtime: a statement that does nothing. */
const NO_OP: Record<string, string> = {
  python: "pass  # dependency install removed: the network is off and setup installed the dependencies",
  node: "void 0; // dependency install removed: the network is off and setup installed the dependencies",
  java: "// dependency install removed: the network is off and setup installed the dependencies",
  go: "// dependency install removed: the network is off and setup installed the dependencies",
  rust: "// dependency install removed: the network is off and setup installed the dependencies",
  cpp: "// dependency install removed: the network is off and setup installed the dependencies",
  command: ": # dependency install removed: the network is off and setup installed the dependencies",
};

/** Lines a call may span before it is taken as one statement (a longer one is judged line by line). */
const MAX_STATEMENT_LINES = 12;

/**
 * How far a line leaves a call's brackets open (strings are not parsed: good enough for one call).
 * Braces do not count: `int main() {` or `fn main() {` opens a block, not a call that goes on.
 */
const openness = (line: string): number => {
  let n = 0;
  for (const ch of line) {
    if (ch === "(" || ch === "[") n++;
    else if (ch === ")" || ch === "]") n--;
  }
  return n;
};

/**
 * A script with its dependency installs taken out: in a shell script (`runtime` "command") every command
 * of a chain that installs; in another language every statement that runs an installer (a call of
 * `os.system`, `subprocess`, `execSync`, `exec.Command`, ... whose words install, or IPython's `!pip`),
 * replaced by a statement that does nothing at the same indentation. `removed` lists what was taken out.
 */
export function removeInstalls(script: string, runtime: string): { script: string; removed: string[] } {
  const lines = script.split("\n");
  const out: string[] = [];
  const removed: string[] = [];
  const shell = runtime === "command";
  const noOp = NO_OP[runtime] ?? NO_OP.command!;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = /^\s*/.exec(line)![0];
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("//")) {
      out.push(line);
      continue;
    }
    if (shell) {
      const { installs, rest } = splitInstalls(trimmed);
      if (installs.length === 0) out.push(line);
      else {
        removed.push(...installs);
        out.push(rest === null ? `${indent}${noOp}` : `${indent}${rest}`);
      }
      continue;
    }
    // One statement: this line and the lines it leaves open, up to MAX_STATEMENT_LINES.
    let end = i;
    let open = openness(line);
    while (open > 0 && end + 1 < lines.length && end - i + 1 < MAX_STATEMENT_LINES) {
      end++;
      open += openness(lines[end]!);
    }
    const statement = lines.slice(i, end + 1).join("\n");
    if (RUNS_A_PROGRAM.test(statement) && isDependencyInstall(statement.replace(/^\s*[!%]/, ""))) {
      removed.push(words(statement.replace(/^\s*[!%]/, "")).slice(0, 200));
      out.push(`${indent}${noOp}`);
      i = end;
      continue;
    }
    out.push(line);
  }
  return { script: out.join("\n"), removed };
}

/** The one sentence a writer of a script is told when its installs were taken out. */
export function installsRemovedSentence(removed: readonly string[]): string {
  const shown = removed
    .slice(0, 3)
    .map((r) => `\`${r.replace(/`/g, "'").slice(0, 120)}\``)
    .join(", ");
  return `The dependency install${removed.length > 1 ? "s" : ""} in your script (${shown}${removed.length > 3 ? ", ..." : ""}) ${removed.length > 1 ? "were" : "was"} not run: the sandbox has no network, and the dependencies are already installed as far as the repository's setup step allowed.`;
}
