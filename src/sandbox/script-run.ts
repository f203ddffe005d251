/**
 * Runs a script (a reproducer) in the sandbox and learns how it ended from what the runtime reports, not
 * from a word in its output: for Python and Node through a launcher (launchers.ts) that runs the script in
 * the same process and writes a record; for Go and Java from the structure the toolchain gives a build
 * failure and an uncaught panic or exception. The launcher and its record get names drawn per run, the
 * record is created before the script starts (exclusively) and read back through tree-fs (no link
 * followed, size capped), and it must agree with the process's exit status.
 */
import { randomBytes } from "node:crypto";
import { openTree, TreeFsError } from "../core/tree-fs.ts";
import { NODE_LAUNCHER, PYTHON_LAUNCHER } from "./launchers.ts";
import type { ExecResult, SandboxPort } from "./types.ts";

/** How a script ended, as its runtime reported it. */
export interface ScriptEnding {
  /**
   * exit: it ended by exiting (status in `exit`); exception: an uncaught exception (or a Go panic);
   * does-not-parse / does-not-compile / does-not-import: it never ran its own code to the end because it
   * (or what it imports) does not parse, compile or load; unknown: it cannot be told (another runtime, a
   * custom command, a record missing or at odds with the exit status, a sandbox limit).
   */
  how: "exit" | "exception" | "does-not-parse" | "does-not-compile" | "does-not-import" | "unknown";
  /** The exception's type as the runtime names it (`AssertionError`, `java.lang.AssertionError`, `panic`). */
  type: string | null;
  message: string;
  /** The runtime's own assertion failure (Python's AssertionError, node:assert's, Java's, a Go panic that says so). */
  assertion: boolean;
  /** Types of the exceptions it was raised while handling, or caused by, nearest first. */
  chain: string[];
  /** The line of a parse or compile failure, when known. */
  line: number | null;
  /** Why the ending could not be told (for `unknown`). */
  detail?: string;
}

/** Lines of the work tree's files that ran inside a function, by repository-relative path. */
export type LineTrace = Record<string, number[]>;

export interface ScriptRun {
  exec: ExecResult;
  ending: ScriptEnding;
  /** The lines that ran; null when the runtime's runs cannot be traced. */
  trace: LineTrace | null;
  /**
   * How the ending was learnt: `record` (the launcher's), `structure` (the toolchain's output), `output`
   * (not at all: a custom command or runtime, whose output alone is left to read).
   */
  told: "record" | "structure" | "output";
}

export interface ScriptRequest {
  workdir: string;
  /** The reproducer runtime (`python`, `node`, `java`, `go`, `command`). */
  runtime: string;
  /** The configured command line. */
  command: string;
  /** The script's path, relative to the work tree root. */
  file: string;
  timeoutMs: number;
  memoryMb: number;
  maxProcesses: number;
  signal?: AbortSignal;
}

/** Largest record read back (its lines are capped in the launcher too). */
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

const shellQuote = (s: string): string => (/^[\w./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The command that runs `file` under a launcher, when the configured command is the runtime's plain
 * form (`python3 <file>`, `node <file>`); null otherwise (a custom command is run as it is).
 */
export function launchedCommand(
  runtime: string,
  command: string,
  file: string,
  launcher: string,
  record: string,
): string | null {
  const f = `(?:${escapeRe(file)}|${escapeRe(shellQuote(file))}|\\./${escapeRe(file)})`;
  if (runtime === "python") {
    const m = new RegExp(`^(python3?(?:\\.\\d+)?)\\s+${f}$`).exec(command.trim());
    return m ? `${m[1]} ${launcher} ${record} ${shellQuote(file)}` : null;
  }
  if (runtime === "node") {
    const m = new RegExp(`^node\\s+${f}$`).exec(command.trim());
    return m ? `node --import ./${launcher} ${shellQuote(file)}` : null;
  }
  return null;
}

const plain = (
  how: ScriptEnding["how"],
  type: string | null,
  message: string,
  line: number | null = null,
): ScriptEnding => ({
  how,
  type,
  message: message.slice(0, 2000),
  assertion: false,
  chain: [],
  line,
});

const unknown = (detail: string): ScriptEnding => ({
  how: "unknown",
  type: null,
  message: "",
  assertion: false,
  chain: [],
  line: null,
  detail,
});

/** Runs the script (already written at `file`) and says how it ended. */
export async function runScript(sandbox: SandboxPort, req: ScriptRequest): Promise<ScriptRun> {
  const nonce = randomBytes(9).toString("base64url").replace(/[^\w]/g, "x");
  const tree = openTree(req.workdir);
  const launcher = req.runtime === "python" ? `.af-${nonce}.py` : `.af-${nonce}.mjs`;
  const record = req.runtime === "python" ? `.af-${nonce}-r.json` : `.af-${nonce}.json`;
  const wrapped = launchedCommand(req.runtime, req.command, req.file, launcher, record);
  if (wrapped) tree.write(launcher, req.runtime === "python" ? PYTHON_LAUNCHER : NODE_LAUNCHER);
  let exec: ExecResult;
  try {
    exec = await sandbox.run({
      workdir: req.workdir,
      command: wrapped ?? req.command,
      timeoutMs: req.timeoutMs,
      memoryMb: req.memoryMb,
      maxProcesses: req.maxProcesses,
      ...(req.signal ? { signal: req.signal } : {}),
    });
  } finally {
    if (wrapped) tree.remove(launcher);
  }
  let text: string | null = null;
  if (wrapped) {
    try {
      text = tree.readIfExists(record, { maxBytes: MAX_RECORD_BYTES })?.toString("utf8") ?? null;
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
    }
    tree.remove(record);
  }
  const told = wrapped ? "record" : req.runtime === "go" || req.runtime === "java" ? "structure" : "output";
  if (exec.limit !== null)
    return { exec, ending: unknown(`the sandbox's ${exec.limit} limit ended it`), trace: null, told };
  if (wrapped) return { exec, ...fromRecord(text, exec, req.file), told };
  if (req.runtime === "go") return { exec, ending: goEnding(exec), trace: null, told };
  if (req.runtime === "java") return { exec, ending: javaEnding(exec), trace: null, told };
  return {
    told,
    exec,
    ending: unknown(
      req.runtime === "python" || req.runtime === "node"
        ? `the reproducer's command is not the plain \`${req.runtime === "python" ? "python3" : "node"} <file>\`, so how the script ended cannot be told`
        : `how a script of runtime \`${req.runtime}\` ended cannot be told`,
    ),
    trace: null,
  };
}

const str = (v: unknown, max = 2000): string => (typeof v === "string" ? v.slice(0, max) : "");

/** The launcher's record, checked against the exit status; an unusable one is `unknown`. */
function fromRecord(
  text: string | null,
  exec: ExecResult,
  file: string,
): Pick<ScriptRun, "ending" | "trace"> {
  if (text === null || text === "")
    return { ending: unknown("the script left no record of how it ended"), trace: null };
  let rec: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
    rec = v as Record<string, unknown>;
  } catch {
    return { ending: unknown("the record of how the script ended cannot be read"), trace: null };
  }
  const how = rec.how;
  const exit = typeof rec.exit === "number" ? rec.exit : null;
  const agrees = exec.exitCode !== null && (how === "exit" ? exit === exec.exitCode : exec.exitCode !== 0);
  if (!agrees || !["exit", "exception", "does-not-parse", "does-not-import"].includes(String(how)))
    return {
      ending: unknown("the record of how the script ended disagrees with its exit status"),
      trace: null,
    };
  const trace: LineTrace = {};
  const lines = rec.lines;
  if (typeof lines === "object" && lines !== null && !Array.isArray(lines)) {
    for (const [k, v] of Object.entries(lines)) {
      if (!/^[^/.][^\0]*$/.test(k) || k.split("/").some((p) => p === ".." || p === "")) continue;
      if (Array.isArray(v)) trace[k] = v.filter((n): n is number => Number.isInteger(n) && n > 0);
    }
  }
  let line = typeof rec.line === "number" && Number.isInteger(rec.line) ? rec.line : null;
  if (how === "does-not-parse" && line === null) {
    // Node names the place of a parse failure only in what it prints: `<file url or path>:<line>`.
    const m = new RegExp(`^\\S*${escapeRe(file)}:(\\d+)$`, "m").exec(exec.stderr);
    if (m) line = Number(m[1]);
  }
  return {
    ending: {
      how: how as ScriptEnding["how"],
      type: how === "exit" ? null : str(rec.type, 200) || null,
      message: how === "exit" ? "" : str(rec.message),
      assertion: how === "exception" && rec.assertion === true,
      chain: Array.isArray(rec.chain) ? rec.chain.map((c) => str(c, 200)).slice(0, 20) : [],
      line,
    },
    trace,
  };
}

/**
 * A Go program run with `go run`: a build failure is the compiler's `# package` header with
 * `file.go:line:col: ...` lines (or a missing package); a panic is `panic: <value>` followed by a
 * `goroutine N [running]:` trace.
 */
export function goEnding(exec: ExecResult): ScriptEnding {
  const err = exec.stderr;
  if (exec.exitCode === 0) return plain("exit", null, "");
  const panic = /(?:^|\n)panic: (.*)(?:\n[\s\S]*?)?\ngoroutine \d+ \[/.exec(err);
  if (panic) {
    const value = panic[1]!.replace(/ \[recovered\]$/, "");
    const runtimeError = /^runtime error: /.test(value);
    return {
      how: "exception",
      type: runtimeError ? "runtime error" : "panic",
      message: value.slice(0, 2000),
      assertion: /^(?:AssertionError|assertion failed)\b/i.test(value),
      chain: [],
      line: null,
    };
  }
  const build = /(?:^|\n)# \S+\n(?:.*\n)*?\S+\.go:(\d+):\d+: (.*)/.exec(err);
  if (build)
    return {
      how: /undefined: |has no field or method|could not import|imported and not used/.test(build[2]!)
        ? "does-not-import"
        : "does-not-compile",
      type: "build failure",
      message: build[2]!.slice(0, 2000),
      assertion: false,
      chain: [],
      line: Number(build[1]),
    };
  if (/no required module provides package|cannot find package|package \S+ is not in std/.test(err))
    return plain("does-not-import", "build failure", firstLine(err));
  return unknown("the program failed without a panic or a build error that can be told");
}

const firstLine = (s: string) => (s.trim().split("\n")[0] ?? "").slice(0, 2000);

/**
 * A Java program compiled by `javac` and run by `java`: a compile failure is javac's `File.java:N: error:`
 * (or the source launcher's `error: compilation failed`); an uncaught exception is `Exception in thread
 * "main" <type>[: message]` followed by `\tat ...` frames.
 */
export function javaEnding(exec: ExecResult): ScriptEnding {
  const err = exec.stderr;
  if (exec.exitCode === 0) return plain("exit", null, "");
  const thrown = [...err.matchAll(/^Exception in thread "main" ([\w.$]+)(?:: (.*))?\n\s+at /gm)].at(-1);
  if (thrown) {
    const type = thrown[1]!;
    const loads =
      /^java\.lang\.(NoClassDefFoundError|ClassNotFoundException|NoSuchMethodError|NoSuchFieldError|UnsatisfiedLinkError)$/;
    const causes = [...err.matchAll(/^Caused by: ([\w.$]+)/gm)].map((m) => m[1]!);
    return {
      how: loads.test(type) ? "does-not-import" : "exception",
      type,
      message: (thrown[2] ?? "").slice(0, 2000),
      assertion: type === "java.lang.AssertionError",
      chain: causes.slice(0, 20),
      line: null,
    };
  }
  const compile = /^\S+\.java:(\d+): error: (.*)$/m.exec(err);
  if (compile)
    return {
      how: /cannot find symbol|does not exist|cannot be applied/.test(compile[2]!)
        ? "does-not-import"
        : "does-not-compile",
      type: "compile error",
      message: compile[2]!.slice(0, 2000),
      assertion: false,
      chain: [],
      line: Number(compile[1]),
    };
  if (/^error: compilation failed$/m.test(err))
    return plain("does-not-compile", "compile error", firstLine(err));
  return unknown("the program failed without an uncaught exception or a compile error that can be told");
}
