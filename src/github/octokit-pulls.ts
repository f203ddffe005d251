import type { ProbotOctokit } from "probot";
import type {
  AnnotationInfo,
  CheckRunInfo,
  PullDetail,
  PullGitHub,
  ReviewCommentInfo,
  ReviewInfo,
} from "./pull-port.ts";

type Octokit = InstanceType<typeof ProbotOctokit>;

/**
 * Most bytes of an Actions log read to find its tail when its storage ignores a range request (GitHub's
 * answers ranges: only the tail is fetched); a longer log's tail is then that of its first part.
 */
const MAX_LOG_READ_BYTES = 64 * 1024 * 1024;

/** Bytes fetched for a tail of `maxChars` characters (a character is at most 4 bytes of UTF-8). */
const tailBytes = (maxChars: number): number => maxChars * 4;

/**
 * The last `maxChars` characters of the log at `url` (storage, signed: no token is sent). A suffix range
 * asks for the tail alone; storage that ignores it sends the whole log, read as a stream.
 */
async function downloadLogTail(url: string, maxChars: number): Promise<string | null> {
  const res = await fetch(url, { headers: { range: `bytes=-${tailBytes(maxChars)}` } });
  if (!res.ok) {
    await res.body?.cancel();
    if (res.status === 404 || res.status === 410 || res.status === 403) return null;
    throw Object.assign(new Error(`the job log's download answered ${res.status}`), { status: res.status });
  }
  return await bodyTail(res.body, maxChars);
}

/** The last `maxChars` characters of a response body (a string, or a stream read up to MAX_LOG_READ_BYTES). */
async function bodyTail(body: unknown, maxChars: number): Promise<string | null> {
  if (typeof body === "string") return charTail(body, maxChars);
  if (!body || typeof (body as ReadableStream).getReader !== "function") return null;
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const keep = tailBytes(maxChars);
  let tail = Buffer.alloc(0);
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    tail = Buffer.concat([tail, value]);
    if (tail.length > keep * 2) tail = tail.subarray(tail.length - keep);
    if (read > MAX_LOG_READ_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return charTail(tail.subarray(Math.max(0, tail.length - keep)).toString("utf8"), maxChars);
}

/**
 * The last `max` UTF-16 units of `text`, not starting inside a character: a first character cut by the
 * byte range (decoded as U+FFFD) or a surrogate pair cut in two is dropped.
 */
function charTail(text: string, max: number): string {
  const tail = text.slice(-max);
  return tail.replace(/^(?:\uFFFD|[\uDC00-\uDFFF])/, "");
}

const status = (error: unknown): number | undefined =>
  typeof error === "object" && error !== null && "status" in error
    ? Number((error as { status: unknown }).status)
    : undefined;

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw => (typeof v === "object" && v !== null ? (v as Raw) : {});

function toReviewComment(c: Raw): ReviewCommentInfo {
  const user = obj(c.user);
  return {
    id: Number(c.id),
    reviewId: num(c.pull_request_review_id),
    inReplyTo: num(c.in_reply_to_id),
    authorLogin: str(user.login),
    authorType: str(user.type),
    body: str(c.body),
    path: str(c.path),
    line: num(c.line),
    startLine: num(c.start_line),
    side: c.side === "LEFT" ? "LEFT" : "RIGHT",
    diffHunk: str(c.diff_hunk),
    url: str(c.html_url),
  };
}

function toCheckRun(r: Raw): CheckRunInfo {
  const output = obj(r.output);
  return {
    id: Number(r.id),
    name: str(r.name),
    status: str(r.status),
    conclusion: typeof r.conclusion === "string" ? r.conclusion : null,
    headSha: str(r.head_sha),
    appSlug: str(obj(r.app).slug),
    url: str(r.html_url) || str(r.details_url),
    title: str(output.title),
    summary: str(output.summary),
    text: str(output.text),
    annotationsCount: num(output.annotations_count) ?? 0,
  };
}

const RESOLVED_QUERY = `query($owner: String!, $repo: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { isResolved comments(first: 100) { nodes { databaseId } } }
      }
    }
  }
}`;

interface ThreadsPage {
  repository?: {
    pullRequest?: {
      reviewThreads?: {
        pageInfo?: { hasNextPage?: boolean; endCursor?: string | null };
        nodes?: { isResolved?: boolean; comments?: { nodes?: { databaseId?: number | null }[] } }[];
      };
    };
  };
}

/** `PullGitHub` on an installation-authenticated Probot octokit (honours GHE_HOST through its baseUrl). */
export function createOctokitPulls(octokit: Octokit, owner: string, repo: string): PullGitHub {
  return {
    async getPull(pullNumber) {
      const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: pullNumber });
      const pull: PullDetail = {
        number: data.number,
        state: data.state === "closed" ? "closed" : "open",
        body: data.body ?? "",
        authorLogin: data.user?.login ?? "",
        authorType: data.user?.type ?? "",
        headRef: data.head.ref,
        headSha: data.head.sha,
        baseRef: data.base.ref,
      };
      return pull;
    },
    async getPullDiff(pullNumber) {
      const { data } = await octokit.rest.pulls.get({
        owner,
        repo,
        pull_number: pullNumber,
        mediaType: { format: "diff" },
      });
      return typeof data === "string" ? data : "";
    },
    async getReview(pullNumber, reviewId) {
      const { data } = await octokit.rest.pulls.getReview({
        owner,
        repo,
        pull_number: pullNumber,
        review_id: reviewId,
      });
      const review: ReviewInfo = {
        id: data.id,
        state: String(data.state ?? "").toLowerCase(),
        body: data.body ?? "",
        authorLogin: data.user?.login ?? "",
        authorType: data.user?.type ?? "",
        commitId: data.commit_id ?? "",
      };
      return review;
    },
    async listReviewComments(pullNumber) {
      const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, {
        owner,
        repo,
        pull_number: pullNumber,
        per_page: 100,
      });
      return all.map((c) => toReviewComment(c as unknown as Raw));
    },
    async resolvedReviewComments(pullNumber) {
      const resolved = new Set<number>();
      let after: string | null = null;
      try {
        for (let page = 0; page < 10; page++) {
          const data: ThreadsPage = await octokit.graphql<ThreadsPage>(RESOLVED_QUERY, {
            owner,
            repo,
            number: pullNumber,
            after,
          });
          const threads = data.repository?.pullRequest?.reviewThreads;
          for (const t of threads?.nodes ?? []) {
            if (!t.isResolved) continue;
            for (const c of t.comments?.nodes ?? [])
              if (typeof c.databaseId === "number") resolved.add(c.databaseId);
          }
          if (!threads?.pageInfo?.hasNextPage) return resolved;
          after = threads.pageInfo.endCursor ?? null;
        }
        return resolved;
      } catch {
        return null;
      }
    },
    async readFile(path, ref) {
      try {
        const { data } = await octokit.rest.repos.getContent({
          owner,
          repo,
          path,
          ref,
          mediaType: { format: "raw" },
        });
        return typeof data === "string" ? data : null;
      } catch (error) {
        if (status(error) === 404) return null;
        throw error;
      }
    },
    async listCheckRuns(sha) {
      const all = await octokit.paginate(octokit.rest.checks.listForRef, {
        owner,
        repo,
        ref: sha,
        per_page: 100,
      });
      return all.map((r) => toCheckRun(r as unknown as Raw));
    },
    async listAnnotations(checkRunId) {
      const { data } = await octokit.rest.checks.listAnnotations({
        owner,
        repo,
        check_run_id: checkRunId,
        per_page: 50,
      });
      return data.map(
        (a): AnnotationInfo => ({
          path: a.path ?? "",
          startLine: a.start_line ?? null,
          endLine: a.end_line ?? null,
          level: a.annotation_level ?? "failure",
          title: a.title ?? "",
          message: a.message ?? "",
        }),
      );
    },
    async actionsJobLogTail(jobId, maxChars) {
      try {
        // The API answers with a redirect to the log's storage; the log is fetched from there without
        // the token, asking for its tail only.
        const res = await octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", {
          owner,
          repo,
          job_id: jobId,
          request: { parseSuccessResponseBody: false, redirect: "manual" },
        });
        const location = res.headers.location;
        if (res.status >= 300 && res.status < 400 && typeof location === "string") {
          return await downloadLogTail(location, maxChars);
        }
        return await bodyTail(res.data as unknown, maxChars);
      } catch (error) {
        if (status(error) === 404 || status(error) === 410 || status(error) === 403) return null;
        throw error;
      }
    },
    async replyToReviewComment(pullNumber, commentId, body) {
      await octokit.rest.pulls.createReplyForReviewComment({
        owner,
        repo,
        pull_number: pullNumber,
        comment_id: commentId,
        body,
      });
    },
  };
}
