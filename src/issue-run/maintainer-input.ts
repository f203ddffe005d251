import {
  capInstructions,
  type CheckEvidence,
  INSTRUCTIONS_FILES,
  type Instructions,
  logTail,
  type MaintainerInput,
  type ReviewInput,
  type ReviewPoint,
} from "../core/maintainer-input.ts";
import {
  type CheckRunInfo,
  FAILING_CONCLUSIONS,
  type PullGitHub,
  type ReviewCommentInfo,
} from "../github/pull-port.ts";
import type { RunData } from "./job-data.ts";

/** Most review comments one run answers; most failing checks, and annotations per check, it reads. */
const MAX_POINTS = 30;
const MAX_CHECKS = 5;
const MAX_ANNOTATIONS = 20;
/** Characters of a check's log tail; of code shown for one comment. */
const LOG_TAIL_CHARS = 6000;
const MAX_CODE_LINES = 60;

export interface Gathered {
  input: MaintainerInput;
  /** Things the status comment or the log should know (a part that could not be read, and why). */
  notes: string[];
}

const isBot = (login: string, type: string) => type === "Bot" || login.endsWith("[bot]");

/** The lines a comment points at, numbered, from the file at the pull request's head. */
function codeFor(c: ReviewCommentInfo, file: string | null): { code: string; outdated: boolean } {
  if (c.line === null || file === null) {
    // Outdated (the lines moved) or the file is gone at the head: the hunk GitHub kept with the comment.
    return { code: c.diffHunk.split("\n").slice(-MAX_CODE_LINES).join("\n"), outdated: true };
  }
  const lines = file.split("\n");
  const start = Math.max(1, Math.min(c.startLine ?? c.line, c.line));
  const end = Math.min(lines.length, c.line);
  const width = String(end).length;
  const out: string[] = [];
  for (let n = start; n <= end && out.length < MAX_CODE_LINES; n++) {
    out.push(`${String(n).padStart(width)} | ${lines[n - 1] ?? ""}`);
  }
  return { code: out.join("\n"), outdated: false };
}

/** Review comments as points, with their code at the head (one file read per path). */
async function toPoints(
  pulls: PullGitHub,
  comments: ReviewCommentInfo[],
  headSha: string,
): Promise<ReviewPoint[]> {
  const files = new Map<string, Promise<string | null>>();
  const read = (path: string) => {
    let f = files.get(path);
    if (!f) {
      f = pulls.readFile(path, headSha).catch(() => null);
      files.set(path, f);
    }
    return f;
  };
  const points: ReviewPoint[] = [];
  for (const c of comments.slice(0, MAX_POINTS)) {
    // Only the RIGHT side is the head's; a comment on removed lines shows its hunk.
    const file = c.side === "RIGHT" && c.line !== null ? await read(c.path) : null;
    const { code, outdated } = codeFor(c, c.side === "RIGHT" ? file : null);
    points.push({
      id: c.id,
      author: c.authorLogin,
      path: c.path,
      startLine: c.line === null ? null : (c.startLine ?? c.line),
      endLine: c.line,
      side: c.side,
      body: c.body,
      code,
      outdated: outdated && c.side === "RIGHT",
      ...(c.inReplyTo !== null ? { threadId: c.inReplyTo } : {}),
    });
  }
  return points;
}

/**
 * The comments whose authors have write access (one lookup per author; a lookup that fails counts as no
 * access). The number left out goes to the notes.
 */
async function writersOnly(
  comments: ReviewCommentInfo[],
  isWriter: (login: string) => Promise<boolean>,
  notes: string[],
): Promise<ReviewCommentInfo[]> {
  const verdicts = new Map<string, Promise<boolean>>();
  const kept: ReviewCommentInfo[] = [];
  let left = 0;
  for (const c of comments) {
    const key = c.authorLogin.toLowerCase();
    let v = verdicts.get(key);
    if (!v) {
      v = isWriter(c.authorLogin).catch(() => false);
      verdicts.set(key, v);
    }
    if (await v) kept.push(c);
    else left++;
  }
  if (left > 0) {
    notes.push(`${left} review comment(s) by people without write access were left out (not answered).`);
  }
  return kept;
}

/** The failing checks of a commit as evidence: names, annotations, and the end of each log. */
export async function checkEvidence(pulls: PullGitHub, runs: CheckRunInfo[]): Promise<CheckEvidence[]> {
  const failing = runs.filter((r) => r.status === "completed" && FAILING_CONCLUSIONS.has(r.conclusion ?? ""));
  const out: CheckEvidence[] = [];
  for (const r of failing.slice(0, MAX_CHECKS)) {
    const annotations = r.annotationsCount > 0 ? await pulls.listAnnotations(r.id).catch(() => []) : [];
    let log: string | null = null;
    if (r.appSlug === "github-actions")
      log = await pulls.actionsJobLogTail(r.id, LOG_TAIL_CHARS).catch(() => null);
    if (log === null && r.text.trim()) log = r.text;
    out.push({
      name: r.name,
      conclusion: r.conclusion ?? "",
      sha: r.headSha,
      url: r.url,
      summary: [r.title, r.summary]
        .filter((s) => s.trim())
        .join("\n")
        .slice(0, 2000),
      annotations: annotations
        .filter((a) => a.level !== "notice")
        .slice(0, MAX_ANNOTATIONS)
        .map((a) => ({ ...a, title: a.title.slice(0, 300), message: a.message.slice(0, 2000) })),
      logTail: log ? logTail(log, LOG_TAIL_CHARS) : "",
    });
  }
  return out;
}

/** The repository's instructions on its default branch (`.github/auto-fix.md`, else `AGENTS.md`). */
async function instructionsOn(pulls: PullGitHub, ref: string): Promise<Instructions | null> {
  for (const path of INSTRUCTIONS_FILES) {
    const text = await pulls.readFile(path, ref);
    if (text !== null) return capInstructions(path, ref, text);
  }
  return null;
}

/**
 * What the maintainer said for this run, read from GitHub: the review that started it (its body and
 * every unresolved comment, with the code each points at on the pull request's head), or, for a `/retry`
 * while the app's pull request is open, its open review comments; the failing checks of the pull
 * request's head; the repository's instructions from the default branch (left to the pipeline, which
 * reads them from the clone, when the clone is the default branch). A part that cannot be read is left
 * out with a note, never failing the run.
 */
export async function gatherMaintainerInput(
  pulls: PullGitHub,
  data: RunData,
  words: { text?: string | undefined; advice?: string | undefined; retry: boolean },
  /** Whether a login has write access (admin, maintain or write): only their comments count. */
  isWriter: (login: string) => Promise<boolean>,
): Promise<Gathered> {
  const input: MaintainerInput = {};
  const notes: string[] = [];
  if (words.text?.trim()) input.text = words.text;
  if (words.advice?.trim()) input.advice = words.advice;
  const note = (what: string) => (error: unknown) => {
    notes.push(`${what} could not be read: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  };
  if (data.ref !== data.defaultBranch) {
    const ins = await instructionsOn(pulls, data.defaultBranch).catch(note("The repository's instructions"));
    input.instructions = ins;
  }
  const pullNumber = data.review?.pull ?? data.ci?.pull ?? (words.retry ? data.issueState.pull : undefined);
  if (!pullNumber) return { input, notes };
  const pull = await pulls.getPull(pullNumber).catch(note(`Pull request #${pullNumber}`));
  if (pull?.state !== "open") return { input, notes };

  const wantsComments = Boolean(data.review) || words.retry;
  if (wantsComments) {
    const [all, resolved] = await Promise.all([
      pulls.listReviewComments(pull.number).catch(note("The review comments")),
      pulls.resolvedReviewComments(pull.number).catch(() => null),
    ]);
    if (resolved === null)
      notes.push("Which review threads are resolved could not be read; every comment was used.");
    const candidates = (all ?? []).filter(
      (c) => !resolved?.has(c.id) && !isBot(c.authorLogin, c.authorType) && c.body.trim() !== "",
    );
    // Review comments count only from people with write access: a stranger's words are neither the
    // maintainer's input nor answered.
    const open = await writersOnly(candidates, isWriter, notes);
    let review: ReviewInput | null = null;
    if (data.review) {
      const r = await pulls.getReview(pull.number, data.review.id).catch(note("The review"));
      const mine = open.filter((c) => c.reviewId === data.review!.id);
      review = {
        id: data.review.id,
        author: r?.authorLogin ?? "",
        state: r?.state ?? "commented",
        body: r?.body ?? "",
        points: await toPoints(pulls, mine, pull.headSha),
      };
    } else if (open.length > 0) {
      review = {
        id: 0,
        author: "",
        state: "open-comments",
        body: "",
        points: await toPoints(pulls, open, pull.headSha),
      };
    }
    if (review) input.review = review;
  }
  // The patch the review and the checks are about (the clone is the base, not the pull request's head).
  const diff = await pulls.getPullDiff(pull.number).catch(note("The pull request's diff"));
  if (diff?.trim())
    input.previousPatch = diff.length > 30_000 ? `${diff.slice(0, 30_000)}\n[... cut ...]` : diff;
  const runs = await pulls.listCheckRuns(pull.headSha).catch(note("The pull request's checks"));
  if (runs) {
    const evidence = await checkEvidence(pulls, runs);
    if (evidence.length > 0) input.checks = evidence;
  }
  return { input, notes };
}
