import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../bin/auto-fix.js", import.meta.url));

export interface CliRun {
  code: number | null;
  /** Raw bytes as the terminal would receive them (decoded as latin1 to keep every byte visible). */
  outBytes: Buffer;
  errBytes: Buffer;
  out: string;
  err: string;
}

/** Runs `bin/auto-fix.js` as a real process with exactly `env` (plus PATH and HOME). */
export function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: { PATH: process.env.PATH, HOME: opts.cwd ?? tmpdir(), ...(opts.env ?? {}) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      const outBytes = Buffer.concat(out);
      const errBytes = Buffer.concat(err);
      resolve({ code, outBytes, errBytes, out: outBytes.toString("utf8"), err: errBytes.toString("utf8") });
    });
  });
}

/** A temporary folder removed when the test ends. */
export function tempDir(t: { after: (fn: () => void) => void }, prefix = "auto-fix-cli-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Characters that drive a terminal: C0 controls other than tab, newline and the CR of a CRLF, DEL, C1
 * controls (as UTF-8) and bidirectional overrides.
 */
export function terminalControls(bytes: Buffer): string[] {
  const found: string[] = [];
  const text = bytes.toString("utf8");
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0d && text[i + 1] === "\n") continue;
    const control = (c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f);
    const bidi = (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    if (control || bidi) found.push(`U+${c.toString(16)}`);
  }
  return found;
}
