import { sanitizeUntrusted } from "../core/untrusted-text.ts";
import { anyRunnerResults } from "../runners/index.ts";
import { relativizeSandboxPaths } from "../sandbox/index.ts";

/** How one failing test failed, from the run's output: untrusted text (the repository's code wrote it). */
export interface TestFailure {
  test: string;
  message: string;
}

/** Tests whose messages are looked for (the first ones named), and how much of each is kept. */
export const MAX_FAILURE_MESSAGES = 5;
export const MAX_FAILURE_CHARS = 1500;
const MAX_FAILURE_LINES = 20;
/** Lines a failure's section may span before its last lines are what is kept. */
const MAX_SECTION_LINES = 200;
/** The end of the output, kept when no failing test's own message could be found. */
const OUTPUT_TAIL_LINES = 25;

/** Builds one regular expression that matches where any of `parts` does. */
const anyOf = (parts: readonly RegExp[]): RegExp =>
  parts.length === 0 ? /(?!)/ : new RegExp(parts.map((p) => `(?:${p.source})`).join("|"));

const REPORTS = anyRunnerResults.failureReports;
/** A line that starts another test's section (or a runner's summary), ending the one before it. */
const BOUNDARY = anyOf(REPORTS.flatMap((r) => (r.boundary ? [r.boundary] : [])));
/** A line that starts the failure section of a test (its name is checked separately). */
const HEADER = anyOf(REPORTS.map((r) => r.header));
/** Headers of runners that print a test's messages before it, and where those messages start. */
const BEFORE = REPORTS.flatMap((r) => (r.before ? [{ header: r.header, start: r.before }] : []));
/** A dashed rule under a header: the section continues past it. */
const RULE = /^-{3,}$/;

/** Short names a runner may print for a test id (`path::Class::test[x]`, `pkg.Class.test`, `a > b`). */
function namesOf(id: string): string[] {
  const bare = id.replace(/ \(no longer runs\)$/, "");
  const last = bare.split(/::| > |#|\//).at(-1) ?? bare;
  const dotted = last.includes("(") ? last : (last.split(".").at(-1) ?? last);
  return [...new Set([bare, last, dotted])].filter((n) => n.length >= 3);
}

const clean = (text: string): string => {
  const t = sanitizeUntrusted(relativizeSandboxPaths(text)).trimEnd();
  return t.length > MAX_FAILURE_CHARS ? `...${t.slice(-MAX_FAILURE_CHARS)}` : t;
};

/** The message of one failing test: its summary reason and the last lines of its failure section. */
function messageOf(lines: readonly string[], id: string): string | null {
  const names = namesOf(id);
  const has = (line: string) => names.some((n) => line.includes(n));
  // A reason a runner gives on its summary line (`RunnerResults.failureBlock`).
  const reason = lines
    .filter((l) => has(l))
    .map((l) => anyRunnerResults.failureBlock?.(l)?.reason ?? null)
    .filter((r) => r !== null)
    .at(-1);
  let best: string[] | null = null;
  let bestScore = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!has(line) || !HEADER.test(line)) continue;
    let section: string[];
    const before = BEFORE.find((b) => b.header.test(line));
    if (before) {
      // A runner that prints a test's messages before its verdict: from where they start to here.
      let start = i;
      while (start > 0 && i - start < MAX_SECTION_LINES && !before.start.test(lines[start - 1]!)) start--;
      section = lines.slice(start, i + 1);
    } else {
      let end = i + 1;
      while (end < lines.length && end - i < MAX_SECTION_LINES && !BOUNDARY.test(lines[end]!)) end++;
      if (end < lines.length && RULE.test(lines[end] ?? "")) end++;
      section = lines.slice(i, end);
    }
    const score = section.filter((l) => /error|assert|expected|exception|panic|fail/i.test(l)).length;
    if (score > bestScore) {
      best = section;
      bestScore = score;
    }
  }
  const tail = best ? best.slice(-MAX_FAILURE_LINES).join("\n").trim() : "";
  if (!reason && !tail) return null;
  return clean([reason, tail].filter(Boolean).join("\n"));
}

/**
 * The failure messages of the tests `ids` names, read from a test run's output (assertion text, the last
 * lines of each traceback), bounded in size and cleaned as untrusted text. When no test's own section
 * could be found, the end of the output stands in for them.
 */
export function failureMessages(
  exec: { stdout: string; stderr: string },
  ids: readonly string[],
): TestFailure[] {
  if (ids.length === 0) return [];
  const text = `${exec.stdout}\n${exec.stderr}`.replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  const found: TestFailure[] = [];
  for (const id of ids.slice(0, MAX_FAILURE_MESSAGES)) {
    const message = messageOf(lines, id);
    if (message) found.push({ test: id, message });
  }
  if (found.length > 0) return found;
  const tail = lines
    .filter((l) => l.trim() !== "")
    .slice(-OUTPUT_TAIL_LINES)
    .join("\n");
  return tail ? [{ test: "(end of the test output)", message: clean(tail) }] : [];
}

/** Failures for a prompt: each test's name and its message in a fence, as data. */
export function formatFailures(failures: readonly TestFailure[]): string {
  return failures
    .map((f) => `- ${f.test}:\n\`\`\`\n${f.message.replace(/`{3,}/g, "'''")}\n\`\`\``)
    .join("\n");
}
