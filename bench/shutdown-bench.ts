/**
 * How long `npm start` takes to exit after SIGTERM, with the documented grace period (default 30 s):
 * idle, and with a run in flight whose model call never answers (the worst case: the run cannot finish
 * its stage, so it is aborted when the stage wait is over and its job goes back to the queue).
 * Real processes: the app, the pipeline in its child process, `git http-backend`; GitHub is the fake.
 *
 *   npm run bench:shutdown [-- --grace 30 --rounds 2]
 */
import { parseArgs } from "node:util";
import { tempDir } from "../test/support/temp.ts";
import { deliverIssues, startApp, until } from "../test/ops/support/app-process.ts";
import { jobRow, setUp, startSilentModel } from "../test/ops/support/shutdown-world.ts";

const { values } = parseArgs({
  options: { grace: { type: "string", default: "30" }, rounds: { type: "string", default: "2" } },
});
const grace = Math.max(1, Number(values.grace) || 30);
const rounds = Math.max(1, Number(values.rounds) || 2);

async function once(busy: boolean): Promise<{ seconds: number; code: number | null; job: string }> {
  const model = await startSilentModel();
  const world = await setUp(model.baseURL, grace);
  const app = await startApp(world.env, { cwd: tempDir("auto-fix-bench-shutdown-") });
  try {
    if (busy) {
      const res = await deliverIssues(
        `${app.url}/api/github/webhooks`,
        world.secret,
        `d-${Date.now()}`,
        world.payload,
      );
      if (!res.ok) throw new Error(`webhook answered ${res.status}`);
      await until("the model call", () => model.requests() > 0, 4000);
    }
    const started = performance.now();
    const { code } = await app.stop();
    const seconds = (performance.now() - started) / 1000;
    return { seconds, code, job: busy ? jobRow(world.work).state : "-" };
  } finally {
    await app.stop();
    await model.close();
    await world.github.close();
    await world.git.close();
  }
}

console.log(`SIGTERM to exit, AUTO_FIX_SHUTDOWN_GRACE_SECONDS=${grace}`);
console.log("case                         | exit code | seconds | job after");
for (let r = 0; r < rounds; r++) {
  for (const busy of [false, true]) {
    const { seconds, code, job } = await once(busy);
    const name = busy ? "run in flight (model silent)" : "idle";
    console.log(
      `${name.padEnd(28)} | ${String(code).padEnd(9)} | ${seconds.toFixed(2).padStart(7)} | ${job}`,
    );
  }
}
