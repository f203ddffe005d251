/**
 * What auto-fix reads and writes on its own pull requests besides the issue: the pull request's head,
 * reviews and their line comments (and which threads are resolved), files at a commit, the check runs of
 * a commit with their annotations and logs, and replies in review threads. Bound to one repository; the
 * real implementation is `octokit-pulls.ts`, tests reach it through the fake GitHub over HTTP.
 */

export interface PullDetail {
  number: number;
  state: "open" | "closed";
  body: string;
  authorLogin: string;
  authorType: string;
  headRef: string;
  headSha: string;
  baseRef: string;
}

export interface ReviewInfo {
  id: number;
  /** GitHub's review state, lower case: `changes_requested`, `commented`, `approved`, `dismissed`. */
  state: string;
  body: string;
  authorLogin: string;
  authorType: string;
  commitId: string;
}

export interface ReviewCommentInfo {
  id: number;
  reviewId: number | null;
  inReplyTo: number | null;
  authorLogin: string;
  authorType: string;
  body: string;
  path: string;
  /** The lines on the pull request's current head (null when the comment is outdated). */
  line: number | null;
  startLine: number | null;
  side: "LEFT" | "RIGHT";
  diffHunk: string;
  url: string;
}

export interface CheckRunInfo {
  id: number;
  name: string;
  /** `queued`, `in_progress`, `completed`, ... */
  status: string;
  conclusion: string | null;
  headSha: string;
  /** The app that runs the check (`github-actions` for Actions: its id is the job's id). */
  appSlug: string;
  url: string;
  title: string;
  summary: string;
  text: string;
  annotationsCount: number;
}

export interface AnnotationInfo {
  path: string;
  startLine: number | null;
  endLine: number | null;
  level: string;
  title: string;
  message: string;
}

export interface PullGitHub {
  getPull(pullNumber: number): Promise<PullDetail>;
  /** The pull request's changes as a unified diff (what the reviewers saw). */
  getPullDiff(pullNumber: number): Promise<string>;
  getReview(pullNumber: number, reviewId: number): Promise<ReviewInfo>;
  /** Every review comment of the pull request, oldest first. */
  listReviewComments(pullNumber: number): Promise<ReviewCommentInfo[]>;
  /** Ids of the review comments in resolved threads; null when GitHub could not say (GraphQL refused). */
  resolvedReviewComments(pullNumber: number): Promise<Set<number> | null>;
  /** A file's text at a ref or commit; null when there is no such file. */
  readFile(path: string, ref: string): Promise<string | null>;
  listCheckRuns(sha: string): Promise<CheckRunInfo[]>;
  listAnnotations(checkRunId: number): Promise<AnnotationInfo[]>;
  /** The last `maxChars` of a GitHub Actions job's log; null when it cannot be read. */
  actionsJobLogTail(jobId: number, maxChars: number): Promise<string | null>;
  /** Replies in the thread of a review comment. */
  replyToReviewComment(pullNumber: number, commentId: number, body: string): Promise<void>;
}

/** Conclusions of a check run that mean it failed (neutral, skipped and success do not). */
export const FAILING_CONCLUSIONS = new Set(["failure", "timed_out", "startup_failure", "action_required"]);
