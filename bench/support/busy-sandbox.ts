/**
 * A job whose tests spin every core: busy loops (two per CPU) in the real bubblewrap sandbox, with the
 * operator's ceilings from the environment (AUTO_FIX_MAX_CPUS...). Prints "spinning" once they run; runs
 * until killed (or 10 minutes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { BwrapSandbox } from "../../src/sandbox/index.ts";

const dir = mkdtempSync(join(tmpdir(), "af-busy-"));
const sandbox = new BwrapSandbox();
await sandbox.selfTest();
const loops = availableParallelism() * 2;
const caps = await sandbox.capabilities();
process.stdout.write(`spinning ${loops} loops (cpu: ${caps.cpu})\n`);
const stop = new AbortController();
process.on("SIGTERM", () => stop.abort());
await sandbox.run({
  workdir: dir,
  command: `for i in $(seq 1 ${loops}); do (while :; do :; done) & done; wait`,
  timeoutMs: 600_000,
  maxProcesses: loops * 4,
  signal: stop.signal,
});
rmSync(dir, { recursive: true, force: true });
