import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { loadRepoConfig } from "../../config/index.ts";
import { ceilingsFromEnv, describeClamped } from "../../core/ceilings.ts";
import { UserError } from "../../core/errors.ts";
import { describeOutcome, formatExecForModel, makeWorkCopy, openRunSandbox } from "../../sandbox/index.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliIO } from "../main.ts";

function positiveNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new UserError(`--${name} must be a positive number, got '${value}'`);
  return n;
}

/** Exit status of `auto-fix sandbox`: the command's own, or 124 when a limit was hit. */
export function exitStatusFor(r: { exitCode: number | null; limit: string | null }): number {
  if (r.limit !== null) return 124;
  if (r.exitCode === null) return 1;
  return r.exitCode > 255 || r.exitCode < 0 ? 1 : r.exitCode;
}

/**
 * Runs a command in the sandbox the pipeline uses, on a private copy of <dir> (the directory itself is
 * never changed), and prints what the model would see.
 */
export async function run(parsed: ParsedArgs, io: CliIO): Promise<number> {
  const command = parsed.command;
  if (!command || command.length === 0) throw new UserError("a command is required after '--'");
  const { positionals } = parsed;
  const values = {
    network: parsed.flag("network"),
    timeout: parsed.string("timeout"),
    memory: parsed.string("memory"),
    json: parsed.flag("json"),
    setup: parsed.flag("setup"),
    "no-sandbox": parsed.flag("no-sandbox"),
  };
  if (positionals.length !== 1) throw new UserError("expected one directory before '--'");
  const dir = resolve(io.cwd, positionals[0]!);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UserError(`${positionals[0]} is not a directory`);
  const timeoutS = positiveNumber(values.timeout, "timeout");
  const memoryMb = positiveNumber(values.memory, "memory");

  // The repository's own settings (backend, image, limits, setup), as the pipeline would use them.
  const ceilings = ceilingsFromEnv(io.env);
  const config = loadRepoConfig(dir, { ceilings });
  for (const n of config.clamped) io.stderr(`auto-fix sandbox: note: ${describeClamped(n)}\n`);
  // The same choice of backend and image as a `fix` run makes (`--no-sandbox` asks for none).
  const made = await openRunSandbox(
    config.sandbox,
    values["no-sandbox"] ? { ...io.env, AUTO_FIX_SANDBOX: "none" } : io.env,
    {
      ...(values["no-sandbox"] ? { allowUnsandboxed: true } : {}),
      ceilings,
      warn: (m) => io.stderr(`${m}\n`),
    },
  );
  for (const n of made.notes ?? []) io.stderr(`auto-fix sandbox: note: ${n}\n`);
  if (!made.port) throw new UserError(made.problem);
  const sandbox = made.port;
  const caps = await sandbox.capabilities();
  const copy = await makeWorkCopy(dir);
  try {
    if (values.setup) {
      for (const step of config.setup) {
        io.stderr(`auto-fix sandbox: setup (network on): ${step}\n`);
        const r = await sandbox.run({
          workdir: copy.dir,
          command: step,
          network: true,
          timeoutMs: config.timeouts.setupMs,
          memoryMb: config.sandbox.memoryMb,
          maxProcesses: config.sandbox.maxProcesses,
        });
        if (r.exitCode !== 0 || r.limit) {
          io.stdout(`setup step failed: ${step}\n${formatExecForModel(r)}\n`);
          return exitStatusFor(r) || 1;
        }
      }
    }
    const result = await sandbox.run({
      workdir: copy.dir,
      command,
      network: values.network,
      timeoutMs: timeoutS === undefined ? config.timeouts.testMs : Math.round(timeoutS * 1000),
      memoryMb: memoryMb === undefined ? config.sandbox.memoryMb : Math.round(memoryMb),
      maxProcesses: config.sandbox.maxProcesses,
    });
    if (values.json) {
      io.stdout(`${JSON.stringify({ ...result, capabilities: caps })}\n`);
    } else {
      const head = `sandbox: ${caps.kind}, network ${values.network ? "on" : "off"}, ${result.durationMs} ms`;
      io.stdout(`${head}\n${formatExecForModel(result)}\n`);
      for (const note of caps.notes) io.stderr(`auto-fix sandbox: note: ${note}\n`);
      if (result.limit || result.exitCode !== 0) io.stderr(`auto-fix sandbox: ${describeOutcome(result)}\n`);
    }
    return exitStatusFor(result);
  } finally {
    await copy.dispose();
  }
}
