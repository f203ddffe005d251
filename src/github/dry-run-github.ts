/**
 * `RepoGitHub` without GitHub: what a run would post is written to a folder instead, and its state
 * (comments, pull requests, reactions) is kept there, so that a second run into the same folder sees the
 * first one's status comment and pull request as it would on GitHub. The issue comes from the caller
 * (a file); permissions are the one the caller assumes; files and git go to a local bare repository
 * (`local-remote.ts`).
 *
 * Layout of `dir`:
 *   state.json                 everything below, as the port reads it back
 *   events.jsonl               one line per call that would change GitHub, in order, with its time
 *                              (a comment's write also carries a digest of the text it wrote)
 *   issue-<n>/comment-<id>.md  each comment's current text
 *   pull-<n>.md, pull-<n>.json each pull request's body, and its title, branches and draft flag
 *   pull-<n>.diff              what the pull request changes (base...head), as GitHub would show it
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync, appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type {
  CommentInfo,
  IssueInfo,
  Permission,
  PullInfo,
  Reaction,
  RepoFileRead,
  RepoGitHub,
} from "./port.ts";
import { GITHUB_BODY_LIMIT } from "./port.ts";

/** The login the dry run writes as (a bot, as the app is on GitHub). */
export const DRY_RUN_LOGIN = "auto-fix[bot]";

const CommentSchema = z.object({
  id: z.number().int(),
  issue: z.number().int(),
  body: z.string(),
  authorLogin: z.string(),
  authorType: z.string(),
});
const PullSchema = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string(),
  head: z.string(),
  base: z.string(),
  draft: z.boolean(),
  state: z.enum(["open", "closed"]),
});
const StateSchema = z.object({
  /** The next comment id (ids of their own, as on GitHub). */
  nextId: z.number().int().positive(),
  /** The next pull request number (issues and pull requests share numbers, as on GitHub). */
  nextNumber: z.number().int().positive(),
  comments: z.array(CommentSchema),
  pulls: z.array(PullSchema),
  reactions: z.array(z.object({ on: z.string(), id: z.number().int(), reaction: z.string() })),
});
type State = z.infer<typeof StateSchema>;

export interface DryRunGitHubOptions {
  /** Where the state and the files go (created when missing). */
  dir: string;
  owner: string;
  repo: string;
  /** The issue the run is about, as read from the user's file (untrusted text). */
  issue: { number: number; title: string; body: string; author?: string };
  /** The access every sender is assumed to have. */
  permission: Permission;
  /** The local remote's token (`serveLocalRemote`). */
  gitToken: string;
  /** Reads a file of the default branch (the local remote's `readRemoteFile`). */
  readFile: (path: string, maxBytes: number, ref?: string) => Promise<RepoFileRead>;
  /** The change a pull request shows (GitHub's "Files changed"): base...head in the local remote. */
  diff: (base: string, head: string) => Promise<string>;
  now?: () => number;
}

export interface DryRunGitHub extends RepoGitHub {
  /** The folder the port writes to. */
  readonly dir: string;
  /** Where a pull request's body is written (its change is beside it, `.diff` for `.md`). */
  pullBodyPath(pullNumber: number): string;
  /** Where a comment's current text is written. */
  commentPath(issueNumber: number, commentId: number): string;
}

function loadState(path: string): State {
  if (!existsSync(path)) return { nextId: 1001, nextNumber: 1, comments: [], pulls: [], reactions: [] };
  const parsed = StateSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new Error(`${path} is not a dry run's state: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** A short digest of a comment's text: tells whether two writes changed anything. */
const digestOf = (body: string): string => createHash("sha256").update(body).digest("hex").slice(0, 16);

/** Like GitHub, a body over the limit is refused rather than cut. */
function checkBody(body: string): void {
  if (body.length > GITHUB_BODY_LIMIT) {
    throw new Error(`Validation Failed: body is too long (maximum is ${GITHUB_BODY_LIMIT} characters)`);
  }
}

export function createDryRunGitHub(options: DryRunGitHubOptions): DryRunGitHub {
  const { dir, owner, repo, issue } = options;
  const now = options.now ?? Date.now;
  mkdirSync(dir, { recursive: true });
  const statePath = join(dir, "state.json");
  const state = loadState(statePath);
  const save = () => {
    const tmp = `${statePath}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(tmp, statePath);
  };
  const event = (action: string, data: Record<string, unknown>) => {
    appendFileSync(
      join(dir, "events.jsonl"),
      `${JSON.stringify({ at: new Date(now()).toISOString(), action, ...data })}\n`,
    );
  };
  const commentPath = (issueNumber: number, id: number) =>
    join(dir, `issue-${issueNumber}`, `comment-${id}.md`);
  const pullBodyPath = (n: number) => join(dir, `pull-${n}.md`);
  const writeComment = (c: z.infer<typeof CommentSchema>) => {
    mkdirSync(join(dir, `issue-${c.issue}`), { recursive: true });
    writeFileSync(commentPath(c.issue, c.id), c.body);
  };
  const writePull = async (p: z.infer<typeof PullSchema>) => {
    writeFileSync(join(dir, `pull-${p.number}.diff`), await options.diff(p.base, p.head));
    writeFileSync(pullBodyPath(p.number), p.body);
    const { body: _body, ...meta } = p;
    writeFileSync(
      join(dir, `pull-${p.number}.json`),
      `${JSON.stringify({ ...meta, body: `pull-${p.number}.md`, diff: `pull-${p.number}.diff` }, null, 2)}\n`,
    );
  };
  const toComment = (c: z.infer<typeof CommentSchema>): CommentInfo => ({
    id: c.id,
    body: c.body,
    authorLogin: c.authorLogin,
    authorType: c.authorType,
    url: commentPath(c.issue, c.id),
  });
  const toPull = (p: z.infer<typeof PullSchema>): PullInfo => ({
    number: p.number,
    title: p.title,
    body: p.body,
    url: pullBodyPath(p.number),
    head: p.head,
  });
  const newId = () => {
    const id = state.nextId;
    state.nextId += 1;
    return id;
  };
  // Issue and pull request numbers share one sequence on GitHub: start past the issue's.
  if (state.nextNumber <= issue.number) state.nextNumber = issue.number + 1;

  return {
    owner,
    repo,
    dir,
    pullBodyPath,
    commentPath,
    async permission() {
      return options.permission;
    },
    async getIssue(issueNumber): Promise<IssueInfo> {
      const pull = state.pulls.find((p) => p.number === issueNumber);
      if (issueNumber !== issue.number && !pull)
        throw new Error(`Not Found: no issue #${issueNumber} in the dry run`);
      return {
        number: issueNumber,
        title: pull ? pull.title : issue.title,
        body: pull ? pull.body : issue.body,
        state: "open",
        locked: false,
        isPullRequest: pull !== undefined,
        authorLogin: issue.author ?? "reporter",
        authorType: "User",
      };
    },
    async listComments(issueNumber) {
      return state.comments.filter((c) => c.issue === issueNumber).map(toComment);
    },
    async createComment(issueNumber, body) {
      checkBody(body);
      const c = { id: newId(), issue: issueNumber, body, authorLogin: DRY_RUN_LOGIN, authorType: "Bot" };
      state.comments.push(c);
      writeComment(c);
      save();
      event("comment-created", {
        issue: issueNumber,
        id: c.id,
        file: commentPath(issueNumber, c.id),
        digest: digestOf(body),
      });
      return toComment(c);
    },
    async updateComment(commentId, body) {
      checkBody(body);
      const c = state.comments.find((x) => x.id === commentId);
      if (!c) throw new Error(`Not Found: no comment ${commentId} in the dry run`);
      c.body = body;
      writeComment(c);
      save();
      event("comment-updated", {
        issue: c.issue,
        id: c.id,
        file: commentPath(c.issue, c.id),
        digest: digestOf(body),
      });
    },
    async reactToIssue(issueNumber, reaction: Reaction) {
      state.reactions.push({ on: "issue", id: issueNumber, reaction });
      save();
      event("reaction", { on: "issue", id: issueNumber, reaction });
    },
    async reactToComment(commentId, reaction: Reaction) {
      state.reactions.push({ on: "comment", id: commentId, reaction });
      save();
      event("reaction", { on: "comment", id: commentId, reaction });
    },
    async findOpenPull(branch) {
      const p = state.pulls.find((x) => x.head === branch && x.state === "open");
      return p ? toPull(p) : null;
    },
    async createPull(pull) {
      checkBody(pull.body);
      if (state.pulls.some((p) => p.head === pull.head && p.state === "open")) {
        throw new Error(`Validation Failed: a pull request already exists for ${owner}:${pull.head}`);
      }
      const p = { number: state.nextNumber, ...pull, state: "open" as const };
      state.nextNumber += 1;
      state.pulls.push(p);
      await writePull(p);
      save();
      event("pull-created", {
        number: p.number,
        head: p.head,
        base: p.base,
        draft: p.draft,
        file: pullBodyPath(p.number),
      });
      return toPull(p);
    },
    async updatePull(pullNumber, changes) {
      if (changes.body !== undefined) checkBody(changes.body);
      const p = state.pulls.find((x) => x.number === pullNumber);
      if (!p) throw new Error(`Not Found: no pull request #${pullNumber} in the dry run`);
      if (changes.title !== undefined) p.title = changes.title;
      if (changes.body !== undefined) p.body = changes.body;
      await writePull(p);
      save();
      event("pull-updated", { number: p.number, file: pullBodyPath(p.number) });
    },
    readFile: options.readFile,
    async gitToken() {
      return options.gitToken;
    },
  };
}
