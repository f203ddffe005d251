import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { inlineCode } from "../core/inert-markdown.ts";
import { headMessage, pushEmptyCommit, shallowClone } from "../github/git.ts";
import type { RepoGitHub } from "../github/port.ts";
import type { HandleOutcome } from "./outcome.ts";
import type { AppSettings, CiMode } from "./settings.ts";

/**
 * CI on the app's branch. The app pushes its branch into the repository, so the repository's workflows
 * would run with its secrets on code the model wrote. By default (`ci: approval`) every commit the app
 * pushes says `[skip ci]` (GitHub Actions runs no `push` or `pull_request` workflow for such a head
 * commit) and ends with the `skip-checks: true` trailer (other apps' checks); a maintainer approves
 * with `/ci` or an approving review, and the app pushes an empty commit on top without them, so the
 * repository's CI runs on exactly the code that was approved. Each later push waits for approval
 * again. `ci: immediate` (the repository's default-branch file or the operator's `AUTO_FIX_CI`) runs CI
 * at once.
 */

export const SKIP_CI = "[skip ci]";

/** The message of a run's commit; `title` is already inert plain text. */
export function runCommitMessage(o: {
  issueNumber: number;
  title: string;
  run: number;
  gate: CiMode;
}): string {
  const head = `Fix #${o.issueNumber}: ${o.title}\n\nWritten by auto-fix (run ${o.run}).`;
  if (o.gate === "immediate") return `${head}\n\nFixes #${o.issueNumber}\n`;
  return (
    `${head} ${SKIP_CI}: the repository's CI runs on this commit once a maintainer approves ` +
    `(comment /ci on the pull request, or approve it).\n\nFixes #${o.issueNumber}\n\n\nskip-checks: true\n`
  );
}

/** The status comment's line about CI on a pushed branch. */
export function ciNextStep(gate: CiMode): string | null {
  return gate === "approval"
    ? "CI has not run on this branch (it holds code a model wrote): comment `/ci` on the pull request, or approve it, to run the repository's workflows on it."
    : null;
}

/**
 * A maintainer's approval (`/ci`, or an approving review; the sender's write access was checked): the
 * branch's head is cloned (depth 1) and, when it still says `[skip ci]`, an empty commit without it is
 * pushed on top (never forced: a branch that moved meanwhile is left alone). Replies on `replyTo`.
 */
export async function approveCi(
  input: { branch: string; cloneUrl: string; sender: string; replyTo: number; gate: CiMode },
  deps: { github: RepoGitHub; settings: AppSettings },
): Promise<HandleOutcome> {
  const { github } = deps;
  const who = `@${input.sender}`;
  if (input.gate === "immediate") {
    return { action: "ignored", reason: "ci: immediate, CI already runs on every push" };
  }
  const pull = await github.findOpenPull(input.branch);
  if (!pull) {
    await github.createComment(input.replyTo, `${who} there is no open auto-fix pull request to run CI on.`);
    return { action: "ignored", reason: "no open pull request" };
  }
  const token = await github.gitToken();
  const root = resolve(deps.settings.workDir);
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(join(root, "ci-approval-"));
  try {
    const repoDir = join(dir, "repo");
    const clone = await shallowClone({ url: input.cloneUrl, dir: repoDir, token, ref: input.branch });
    const short = inlineCode(clone.commit.slice(0, 7), 20);
    if (!(await headMessage(repoDir)).includes(SKIP_CI)) {
      await github.createComment(
        input.replyTo,
        `${who} CI already runs on ${inlineCode(input.branch, 100)}: its latest commit (${short}) does not skip it.`,
      );
      return { action: "ignored", reason: "the branch's head does not skip CI" };
    }
    const commit = await pushEmptyCommit({
      dir: repoDir,
      url: input.cloneUrl,
      token,
      branch: input.branch,
      message: `Run CI on ${clone.commit.slice(0, 7)} (approved by ${input.sender})\n\nNo change: this commit lets the repository's workflows run on the commit before it, which auto-fix wrote and a maintainer approved.\n`,
      author: deps.settings.gitAuthor,
    });
    await github.createComment(
      input.replyTo,
      `${who} approved CI for ${short}: the repository's workflows run on ${inlineCode(input.branch, 100)} now (empty commit ${inlineCode(commit.slice(0, 7), 20)}). auto-fix's next push waits for approval again.`,
    );
    return { action: "ci-approved", commit };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
