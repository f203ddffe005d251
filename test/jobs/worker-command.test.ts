import assert from "node:assert/strict";
import { test } from "node:test";
import { main } from "../../src/cli/main.ts";

async function cli(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; err: string }> {
  let err = "";
  const code = await main(argv, {
    env,
    stdout: () => {},
    stderr: (t) => {
      err += t;
    },
  });
  return { code, err };
}

test("auto-fix worker refuses bad options and missing settings with a clear message", async () => {
  const base = { AUTO_FIX_DATA_DIR: "/nonexistent/never-created" };
  let r = await cli(["worker", "--concurrency", "0"], base);
  assert.equal(r.code, 2);
  assert.match(r.err, /--concurrency must be at least 1/);
  r = await cli(["worker", "--port", "99999"], base);
  assert.equal(r.code, 2);
  assert.match(r.err, /--port must be an integer from 0 to 65535/);
  r = await cli(["worker", "--nope"], base);
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown option '--nope'/);
  r = await cli(["worker"], { ...base, REDIS_URL: "redis://127.0.0.1:1" });
  assert.equal(r.code, 2);
  assert.match(r.err, /needs the GitHub App's APP_ID and PRIVATE_KEY/);
  r = await cli(["worker"], { ...base, APP_ID: "1", PRIVATE_KEY: "not a key" });
  assert.equal(r.code, 2);
  assert.match(r.err, /cannot authenticate as the GitHub App/);
  assert.doesNotMatch(r.err, /internal error/);
});
