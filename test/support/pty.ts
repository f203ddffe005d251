import { type ChildProcess, spawn } from "node:child_process";

/**
 * Runs a command on a real pseudo-terminal (python3's `pty` module drives it): what the command writes
 * is collected as a terminal shows it, and `press` types keys into the terminal, so Ctrl-C ("\x03")
 * reaches the command's process group as SIGINT from its terminal, as it does for a person.
 */
const DRIVER = `
import fcntl, os, pty, select, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    os.execvpe(sys.argv[1], sys.argv[1:], os.environ)
# A wide terminal: 50 rows, 240 columns.
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 240, 0, 0))
stdin_open = True
while True:
    r, _, _ = select.select([fd] + ([0] if stdin_open else []), [], [])
    if fd in r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        os.write(1, data)
    if 0 in r:
        keys = os.read(0, 1024)
        if keys:
            os.write(fd, keys)
        else:
            stdin_open = False
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
`;

export interface PtyRun {
  child: ChildProcess;
  /** Everything the terminal showed so far. */
  output(): string;
  /** Types `keys` into the terminal. */
  press(keys: string): void;
  /** Resolves when the output matches `pattern` (rejects after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Exit code of the command (128 + n when a signal n ended it). */
  exited: Promise<number | null>;
}

export function runOnTerminal(argv: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): PtyRun {
  const child = spawn("python3", ["-c", DRIVER, ...argv], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let text = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    text += c;
    for (const w of [...waiters]) {
      if (w.pattern.test(text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    output: () => text,
    press: (keys) => void child.stdin!.write(keys),
    exited,
    waitFor: (pattern, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(text)) return resolve();
        const timer = setTimeout(
          () =>
            reject(new Error(`no ${pattern} on the terminal within ${timeoutMs} ms:\n${text.slice(-3000)}`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
  };
}
