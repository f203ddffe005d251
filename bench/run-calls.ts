/**
 * The GitHub API calls one run makes, listed from the fake GitHub's record: a labelled issue that ends
 * in a draft pull request, then a `/retry` that updates it. The pipeline is a fixed result here (the
 * calls do not depend on it); clone and push go to the real `git http-backend` on loopback.
 *
 *   npm run bench:calls
 */
import { FIX_PATCH, OWNER, REPO, startHarness } from "../test/app/harness.ts";
import { fakeResult } from "../test/support/fix-result.ts";

const h = await startHarness({
  pipeline: async (req) => {
    req.onStage("indexed");
    req.onStage("reproduced");
    req.onStage("located");
    req.onStage("patched");
    req.onStage("reviewed");
    req.onStage("validated");
    return fakeResult({
      status: "fixed",
      patch: FIX_PATCH,
      reproduced: true,
      review: { "patch-correct": "yes", "test-correct": "yes", "patch-advice": "", "test-advice": "" },
    });
  },
});
const issue = h.github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) returns -1" });

const show = (title: string, from: number, gitFrom: number) => {
  const calls = h.github.calls.slice(from);
  console.log(
    `${title}: ${calls.length} REST calls (${calls.filter((c) => c.method !== "GET").length} writes)`,
  );
  for (const c of calls)
    console.log(`  ${c.status} ${c.method} ${c.path}${c.query.head ? `?head=${c.query.head}` : ""}`);
  const git = h.git.requests.slice(gitFrom);
  console.log(
    `  git over HTTP: ${git.length} requests (${git.filter((r) => r.status === 401).length} auth challenges)`,
  );
  for (const r of git) console.log(`    ${r.status} ${r.method} ${r.path} [${r.service}]`);
};

let from = h.github.calls.length;
let gitFrom = h.git.requests.length;
await h.labeled(issue.number);
await h.queue.idle();
show("label → draft pull request", from, gitFrom);
const pr = [...h.repo.pulls.values()][0]!;
from = h.github.calls.length;
gitFrom = h.git.requests.length;
await h.comment(pr.number, "/retry keep sub() as it is");
await h.queue.idle();
show("/retry on the pull request → force-push and update", from, gitFrom);
await h.close();
