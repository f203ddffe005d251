import type { ExecReport } from "./result.ts";
import { type ExecResult, truncateMiddle } from "../sandbox/index.ts";

/** Most characters of each output stream kept in the result (the middle is cut). */
export const RESULT_STREAM_CHARS = 4000;

/** A sandboxed run as the result reports it: both streams, each cut in the middle past a cap. */
export function execReport(e: ExecResult): ExecReport {
  const stdout = truncateMiddle(e.stdout, RESULT_STREAM_CHARS);
  const stderr = truncateMiddle(e.stderr, RESULT_STREAM_CHARS);
  return {
    exitCode: e.exitCode,
    signal: e.signal,
    limit: e.limit,
    stdout,
    stderr,
    truncated: e.truncated || stdout !== e.stdout || stderr !== e.stderr,
    durationMs: Math.max(0, e.durationMs),
  };
}
