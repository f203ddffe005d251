/**
 * Time from webhook delivery to acknowledgement: signed `issues.labeled` deliveries (payload shape from
 * @octokit/webhooks-examples, each for a different issue) POSTed one after another over loopback to the
 * app in a Probot server, which verifies the signature, checks the payload and holds the delivery in the
 * embedded durable store (node:sqlite) without calling GitHub; right after the answer the sender's access
 * is checked and the job stored (the fake GitHub on 127.0.0.1 serves what happens after the answer). Workers are off: the figure is the webhook path alone.
 *
 *   npm run bench:ack [-- --deliveries 100]
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { HandleOutcome } from "../src/app/handler.ts";
import { startAppServer } from "../src/app/server.ts";
import { readSettings } from "../src/issue-run/settings.ts";
import { createJobQueue, createLimitStore, createRunLedger } from "../src/jobs/create-queue.ts";
import { startFakeGitHub } from "../test/support/fake-github.ts";
import { createSigner } from "../test/app/webhook-client.ts";
import { fakeResult } from "../test/support/fix-result.ts";

const { values } = parseArgs({ options: { deliveries: { type: "string", default: "100" } } });
const n = Math.max(1, Number(values.deliveries) || 100);

const work = mkdtempSync(join(tmpdir(), "auto-fix-ack-"));
const github = await startFakeGitHub();
const cloneUrl = "http://127.0.0.1:9/acme/app.git";
const benchRepo = github.addRepo("acme", "app", { cloneUrl });
benchRepo.permissions.set("mona", "write");
benchRepo.permissions.set("visitor", "read");
const queue = createJobQueue({ dataDir: join(work, "data") });
const ledger = createRunLedger({ dataDir: join(work, "data") });
const limits = createLimitStore({ dataDir: join(work, "data") });
const outcomes: HandleOutcome[] = [];
const replies: Promise<void>[] = [];
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const app = await startAppServer({
  appId: 1,
  privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
  secret: "bench",
  env: { GHE_HOST: github.host, GHE_PROTOCOL: "http" },
  app: {
    queue,
    ledger,
    limits,
    // High enough that every delivery is accepted (a refusal would post a reply instead).
    settings: readSettings({
      AUTO_FIX_WORK_DIR: join(work, "runs"),
      AUTO_FIX_MAX_RUNS_PER_REPO_PER_DAY: "1000000",
    }),
    pipeline: async () => fakeResult({ status: "no-patch" }),
    model: "none",
    startWorkers: false,
    onOutcome: (_id, o) => outcomes.push(o),
    onDeferred: (work) => replies.push(work),
  },
});
const signer = createSigner({
  url: app.webhookUrl,
  secret: "bench",
  owner: "acme",
  repo: "app",
  cloneUrl,
  github,
});
const issues = Array.from({ length: n + 5 }, (_, i) =>
  github.addIssue("acme", "app", { title: `bug ${i}`, body: "b" }),
);

// Five warm-up deliveries (JIT, installation token) are left out of the figures.
for (const issue of issues.slice(n)) await signer.labeled(issue.number, "mona");
const callsBefore = github.calls.length;
const times: number[] = [];
for (const issue of issues.slice(0, n)) {
  const t0 = process.hrtime.bigint();
  const { status } = await signer.labeledWithStatus(issue.number, "mona");
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (status !== 200) throw new Error(`delivery answered ${status}`);
}
const calls = github.calls.slice(callsBefore);
// Deliveries from someone without write access (`/retry` on an issue whose job is stored): the permission
// check and the polite reply come after the webhook is answered.
const refusedTimes: number[] = [];
for (const issue of issues.slice(0, Math.min(n, 50))) {
  const t0 = process.hrtime.bigint();
  const { status } = await signer.commentWithStatus(issue.number, "/retry", "visitor");
  refusedTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (status !== 200) throw new Error(`delivery answered ${status}`);
}
// The polite replies go out one a second (Probot's spacing of writes); let them finish before stopping.
await Promise.all(replies);
// Jobs are stored once each sender's access was checked, after the answers: the five warm-ups included.
const stored = outcomes.filter((o) => o.action === "queued").length - 5;
await app.stop();
await ledger.close();
await limits.close();
await github.close();
rmSync(work, { recursive: true, force: true });

times.sort((a, b) => a - b);
refusedTimes.sort((a, b) => a - b);
const quantile = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)]!;
const q = (p: number) => quantile(times, p);
console.log(`deliveries: ${n}, jobs stored: ${stored} (embedded store, node:sqlite)`);
console.log(
  `webhook → acknowledgement (ms): median ${q(0.5).toFixed(2)}, p90 ${q(0.9).toFixed(2)}, ` +
    `p99 ${q(0.99).toFixed(2)}, max ${times.at(-1)!.toFixed(2)}`,
);
console.log(
  `refused (no write access, ${refusedTimes.length} deliveries) → acknowledgement (ms): median ` +
    `${quantile(refusedTimes, 0.5).toFixed(2)}, p99 ${quantile(refusedTimes, 0.99).toFixed(2)}`,
);
const per = new Map<string, number>();
for (const c of calls) {
  const key = `${c.method} ${c.path.replace(/\/issues\/\d+/, "/issues/{n}")}`;
  per.set(key, (per.get(key) ?? 0) + 1);
}
// None comes before an answer (test/app/ack.test.ts holds every GitHub response to show it); these are
// the checks made right after the answers, while the next deliveries were sent.
console.log(
  `GitHub API calls per delivery while they were sent (after the answers):${per.size === 0 ? " none" : ""}`,
);
for (const [k, v] of per) console.log(`  ${(v / n).toFixed(2)} × ${k}`);
