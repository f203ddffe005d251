/**
 * How an interruption (Ctrl-C, a cancelled job) reaches every part of a run: the model call in flight is
 * aborted, and so is every sandboxed command (killed with its process tree); either fails as
 * `RunInterrupted`, naming the stage the run was in, which every stage lets through.
 */
import { RunInterrupted } from "../contract/failures.ts";
import type { ModelPort } from "../model/types.ts";
import type { RunRequest, RunSandbox, SandboxPort } from "../sandbox/index.ts";

/** The stage the run is in now (for the interruption's message). */
export type CurrentStage = () => string | null;

/** A model port whose every call carries `signal`. */
export function modelWithSignal(
  model: ModelPort,
  signal: AbortSignal | undefined,
  stage: CurrentStage,
): ModelPort {
  if (!signal) return model;
  return {
    chat: async (messages, opts) => {
      if (signal.aborted) throw new RunInterrupted({ stage: stage() });
      try {
        return await model.chat(messages, { ...opts, signal });
      } catch (err) {
        if (signal.aborted) throw new RunInterrupted({ cause: err, stage: stage() });
        throw err;
      }
    },
  };
}

/**
 * A sandbox whose every run is killed when `signal` aborts (whatever signal the stage gave it, if any);
 * a run that was killed so, or asked for after the interruption, fails as `RunInterrupted`. `onRun`
 * hears of every run (progress shows what runs).
 */
export function sandboxWithSignal(
  sandbox: RunSandbox,
  signal: AbortSignal | undefined,
  stage: CurrentStage,
  /** Told of each run as it starts; returns what to call when it ends (progress, command-watch.ts). */
  onRun: (req: RunRequest) => () => void = () => () => {},
): RunSandbox {
  const port = sandbox.port;
  if (!port) return sandbox;
  const wrapped: SandboxPort = {
    kind: port.kind,
    capabilities: () => port.capabilities(),
    ...(port.adoptTree ? { adoptTree: (dir: string) => port.adoptTree!(dir) } : {}),
    run: async (req) => {
      if (signal?.aborted) throw new RunInterrupted({ stage: stage() });
      const both = req.signal && signal ? AbortSignal.any([req.signal, signal]) : (signal ?? req.signal);
      const ended = onRun(req);
      let result: Awaited<ReturnType<SandboxPort["run"]>>;
      try {
        result = await port.run({ ...req, ...(both ? { signal: both } : {}) });
      } finally {
        ended();
      }
      if (signal?.aborted) throw new RunInterrupted({ stage: stage() });
      return result;
    },
  };
  return { ...sandbox, port: wrapped };
}

export function throwIfInterrupted(signal: AbortSignal | undefined, stage: CurrentStage): void {
  if (signal?.aborted) throw new RunInterrupted({ stage: stage() });
}
