import { inlineCode } from "../core/inert-markdown.ts";
import type { IssueInfo, Permission, RepoGitHub } from "../github/port.ts";
import { refFromIssue } from "./commands.ts";

/**
 * Which ref a run works on. Only words of someone with write access choose it: a `ref:` line in the
 * command that started the run (its sender was checked), or in the issue when the issue's author has
 * write access. A stranger's `ref:` is left out (the run works on the default branch, and the status
 * comment says so). A pull request's ref (`refs/pull/7/head`, `pull/7/merge`) is never checked out,
 * whoever names it: its code comes from a fork.
 */
export type RefChoice = { ok: true; ref: string; notice?: string } | { ok: false; refusal: string };

const WRITERS = new Set<Permission>(["admin", "maintain", "write"]);

/** True for a pull request's ref, however it is spelled. */
export function isPullRequestRef(ref: string): boolean {
  return /^(refs\/)?pull\//i.test(ref) || /^refs\/(remotes|merge-requests)\//i.test(ref);
}

export async function chooseRunRef(
  input: {
    issueNumber: number;
    body: string;
    /** The sender's own words (a command's guidance). */
    guidance?: string | undefined;
    sender: string;
    defaultBranch: string;
    /** The issue, when it was already read. */
    issue?: IssueInfo | undefined;
  },
  github: Pick<RepoGitHub, "getIssue" | "permission">,
): Promise<RefChoice> {
  const bySender = input.guidance ? refFromIssue(input.guidance) : undefined;
  const inIssue = refFromIssue(input.body);
  let ref = bySender;
  let notice: string | undefined;
  if (ref === undefined && inIssue !== undefined) {
    const issue = input.issue ?? (await github.getIssue(input.issueNumber));
    const author = issue.authorLogin;
    const writer =
      author !== "" &&
      issue.authorType !== "Bot" &&
      (author.toLowerCase() === input.sender.toLowerCase() || WRITERS.has(await github.permission(author)));
    if (writer) ref = inIssue;
    else {
      notice =
        `The issue names ${inlineCode(`ref: ${inIssue}`, 120)}, but its author has no write access, so the run ` +
        `works on ${inlineCode(input.defaultBranch, 100)}. A maintainer can choose a ref with \`/retry ref: <branch or tag>\`.`;
    }
  }
  if (ref !== undefined && isPullRequestRef(ref)) {
    return {
      ok: false,
      refusal:
        `${inlineCode(`ref: ${ref}`, 120)} names a pull request's ref, which auto-fix never checks out (its code ` +
        "may come from a fork). Name a branch or tag of this repository instead.",
    };
  }
  return { ok: true, ref: ref ?? input.defaultBranch, ...(notice ? { notice } : {}) };
}
