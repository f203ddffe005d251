/**
 * The GitHub API calls one run makes, listed from the fake GitHub's record: a labelled issue that ends
 * in a draft pull request, a `/retry` that updates it, then a review with two line comments (one run,
 * one reply per comment) and a failing check with `ci_retries: 1` (one automatic run). The pipeline is a
 * fixed result here (the calls do not depend on it); clone and push go to the real `git http-backend` on
 * loopback.
 *
 *   npm run bench:calls
 */
import { FIX_PATCH, MAINTAINER, OWNER, REPO, SECRET, startHarness } from "../test/app/harness.ts";
import { createSigner } from "../test/app/webhook-client.ts";
import { fakeResult } from "../test/support/fix-result.ts";

const h = await startHarness({
  pipeline: async (req) => {
    req.onStage("indexed");
    req.onStage("reproduced");
    req.onStage("located");
    req.onStage("patched");
    req.onStage("reviewed");
    req.onStage("validated");
    const review = req.maintainer?.review;
    const points = (review?.points ?? []).map((p) => ({
      id: p.id,
      status: "addressed" as const,
      reply: "done",
    }));
    return fakeResult({
      status: "fixed",
      patch: FIX_PATCH,
      reproduced: true,
      review: { "patch-correct": "yes", "test-correct": "yes", "patch-advice": "", "test-advice": "" },
      ...(review ? { maintainer: { review: { id: review.id, points: review.points.length }, points } } : {}),
    });
  },
});
const signer = createSigner({
  url: h.app.webhookUrl,
  secret: SECRET,
  owner: OWNER,
  repo: REPO,
  cloneUrl: h.repo.cloneUrl,
  github: h.github,
});
const issue = h.github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) returns -1" });

const rows: { what: string; rest: number; writes: number; git: number }[] = [];
const show = (title: string, from: number, gitFrom: number) => {
  const calls = h.github.calls.slice(from);
  const writes = calls.filter((c) => c.method !== "GET" && !c.path.endsWith("/graphql")).length;
  console.log(`${title}: ${calls.length} REST calls (${writes} writes)`);
  for (const c of calls)
    console.log(`  ${c.status} ${c.method} ${c.path}${c.query.head ? `?head=${c.query.head}` : ""}`);
  const git = h.git.requests.slice(gitFrom);
  console.log(
    `  git over HTTP: ${git.length} requests (${git.filter((r) => r.status === 401).length} auth challenges)`,
  );
  for (const r of git) console.log(`    ${r.status} ${r.method} ${r.path} [${r.service}]`);
  rows.push({ what: title, rest: calls.length, writes, git: git.length });
};
const step = async (title: string, act: () => Promise<unknown>) => {
  const from = h.github.calls.length;
  const gitFrom = h.git.requests.length;
  await act();
  await h.idle();
  show(title, from, gitFrom);
};

await step("label → draft pull request", () => h.labeled(issue.number));
const pr = [...h.repo.pulls.values()][0]!;
await step("/retry on the pull request → force-push and update", () =>
  h.comment(pr.number, "/retry keep sub() as it is"),
);
const { review, comments } = h.github.addReview(OWNER, REPO, pr.number, {
  user: MAINTAINER,
  state: "CHANGES_REQUESTED",
  body: "Two things.",
  comments: [
    { path: "calc.py", line: 2, body: "Use a + b." },
    { path: "calc.py", line: 6, body: "Leave sub() alone." },
  ],
});
await step("review with two line comments → one run, a reply per comment", async () => {
  await signer.review(pr.number, review.id);
  for (const c of comments) await signer.reviewComment(pr.number, c.id);
});
h.repo.files.set(".github/auto-fix.yml", "label: auto-fix\nci_retries: 1\n");
const head = h.repo.resolveRef!(pr.head)!;
const check = h.github.addCheckRun(OWNER, REPO, {
  name: "tests",
  headSha: head,
  conclusion: "failure",
  annotations: [
    { path: "calc.py", start_line: 2, end_line: 2, annotation_level: "failure", title: "E", message: "m" },
  ],
  log: "FAILED test_add\n",
});
await step("failing check with ci_retries: 1 → one automatic run", () => signer.checkCompleted(check.id));
console.log("\nsummary");
console.log("| flow | REST calls | writes | git requests |");
console.log("| --- | ---: | ---: | ---: |");
for (const r of rows) console.log(`| ${r.what} | ${r.rest} | ${r.writes} | ${r.git} |`);
await h.close();
