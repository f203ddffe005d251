/** An error caused by the user's input (bad arguments, missing directory, ...): printed without a stack. */
export class UserError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "UserError";
    this.exitCode = exitCode;
  }
}

/** A command that ran and failed, with what it printed. */
export class ExecError extends Error {
  readonly cmd: string;
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  constructor(cmd: string, exitCode: number | null, stdout: string, stderr: string) {
    super(`command failed (exit ${exitCode ?? "signal"}): ${cmd}\n${stderr.slice(-2000)}`);
    this.name = "ExecError";
    this.cmd = cmd;
    this.exitCode = exitCode;
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

/** Base for errors that a caller may retry (network, rate limit, lease lost, ...). */
export class RetryableError extends Error {
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RetryableError";
  }
}
