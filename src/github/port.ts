/**
 * The GitHub operations auto-fix needs, bound to one repository. The real implementation runs on an
 * installation-authenticated octokit (`octokit-github.ts`); tests reach it through a fake REST server.
 */

export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface IssueInfo {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  locked: boolean;
  isPullRequest: boolean;
  authorLogin: string;
  authorType: string;
}

export interface CommentInfo {
  id: number;
  body: string;
  authorLogin: string;
  authorType: string;
  url: string;
}

export interface PullInfo {
  number: number;
  title: string;
  body: string;
  url: string;
  head: string;
}

export type Reaction = "eyes" | "rocket" | "confused" | "+1";

/** A repository file read through the port: its text, absent, or not usable (with the reason). */
export type RepoFileRead =
  | { kind: "file"; text: string }
  | { kind: "missing" }
  | { kind: "unusable"; reason: string };

export interface RepoGitHub {
  readonly owner: string;
  readonly repo: string;
  permission(login: string): Promise<Permission>;
  getIssue(issueNumber: number): Promise<IssueInfo>;
  listComments(issueNumber: number): Promise<CommentInfo[]>;
  createComment(issueNumber: number, body: string): Promise<CommentInfo>;
  updateComment(commentId: number, body: string): Promise<void>;
  reactToIssue(issueNumber: number, reaction: Reaction): Promise<void>;
  reactToComment(commentId: number, reaction: Reaction): Promise<void>;
  /** The open pull request whose head is `branch` in this repo, or null. */
  findOpenPull(branch: string): Promise<PullInfo | null>;
  createPull(pull: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }): Promise<PullInfo>;
  updatePull(pullNumber: number, changes: { title?: string; body?: string }): Promise<void>;
  /**
   * A file of the default branch (or of `ref`, a branch or tag) as text. A link, a folder or a file over
   * `maxBytes` is `unusable` (never the content of what a link points to), as the command line's own
   * reading of the clone says.
   */
  readFile(path: string, maxBytes: number, ref?: string): Promise<RepoFileRead>;
  /** A short-lived token for git over HTTPS (the installation token). Never logged or persisted. */
  gitToken(): Promise<string>;
}

/** GitHub's limit on issue, comment and pull request bodies. */
export const GITHUB_BODY_LIMIT = 65_536;
