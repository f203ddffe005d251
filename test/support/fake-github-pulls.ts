/**
 * The fake GitHub's pull-request reviews, review comments (with replies and resolved threads through
 * GraphQL), check runs with annotations, and Actions job logs (a 302 to a log download, as GitHub does).
 * Shapes and status codes follow GitHub's REST API; `fake-github.ts` routes to it.
 */

export interface FakeUserLike {
  login: string;
  type: "User" | "Bot";
}

export interface FakeReview {
  id: number;
  pull: number;
  state: "CHANGES_REQUESTED" | "COMMENTED" | "APPROVED";
  body: string;
  user: FakeUserLike;
  commitId: string;
}

export interface FakeReviewComment {
  id: number;
  pull: number;
  reviewId: number;
  inReplyTo: number | null;
  user: FakeUserLike;
  body: string;
  path: string;
  /** Null: the comment is outdated. */
  line: number | null;
  startLine: number | null;
  side: "LEFT" | "RIGHT";
  diffHunk: string;
}

export interface FakeCheckRun {
  id: number;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  appSlug: string;
  output: { title: string; summary: string; text: string };
  annotations: {
    path: string;
    start_line: number;
    end_line: number;
    annotation_level: string;
    title: string;
    message: string;
  }[];
  /** The job's log (Actions), served after a redirect. */
  log?: string;
  /** The log's download answers a Range request with the whole log (as a server without ranges does). */
  logIgnoresRange?: boolean;
}

export interface PullsState {
  reviews: Map<number, FakeReview>;
  reviewComments: Map<number, FakeReviewComment>;
  /** Ids of the first comments of resolved threads. */
  resolvedThreads: Set<number>;
  checkRuns: Map<number, FakeCheckRun>;
}

export function newPullsState(): PullsState {
  return { reviews: new Map(), reviewComments: new Map(), resolvedThreads: new Set(), checkRuns: new Map() };
}

const userJson = (u: FakeUserLike) => ({ login: u.login, type: u.type, id: u.login.length * 1000 + 7 });

export interface PullsContext {
  owner: string;
  name: string;
  baseUrl: string;
  bot: FakeUserLike;
  nextId: () => number;
  hasPull: (n: number) => boolean;
}

function commentJson(ctx: PullsContext, c: FakeReviewComment): Record<string, unknown> {
  return {
    id: c.id,
    pull_request_review_id: c.reviewId,
    in_reply_to_id: c.inReplyTo ?? undefined,
    user: userJson(c.user),
    body: c.body,
    path: c.path,
    line: c.line,
    start_line: c.startLine,
    side: c.side,
    original_line: c.line,
    diff_hunk: c.diffHunk,
    html_url: `${ctx.baseUrl}/${ctx.owner}/${ctx.name}/pull/${c.pull}#discussion_r${c.id}`,
  };
}

function checkRunJson(ctx: PullsContext, r: FakeCheckRun): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    head_sha: r.headSha,
    status: r.status,
    conclusion: r.conclusion,
    app: { slug: r.appSlug },
    html_url: `${ctx.baseUrl}/${ctx.owner}/${ctx.name}/runs/${r.id}`,
    details_url: `${ctx.baseUrl}/${ctx.owner}/${ctx.name}/actions/runs/${r.id}`,
    output: { ...r.output, annotations_count: r.annotations.length },
  };
}

/** Answers the routes below `/repos/{owner}/{repo}` it knows; null for the others. */
export function routePulls(
  s: PullsState,
  ctx: PullsContext,
  method: string,
  rest: string,
  query: Record<string, string>,
  body: Record<string, unknown>,
): [number, unknown] | null {
  let m = /^\/pulls\/(\d+)\/reviews\/(\d+)$/.exec(rest);
  if (m && method === "GET") {
    const r = s.reviews.get(Number(m[2]));
    if (!r || r.pull !== Number(m[1])) return [404, { message: "Not Found" }];
    return [200, { id: r.id, state: r.state, body: r.body, user: userJson(r.user), commit_id: r.commitId }];
  }
  m = /^\/pulls\/(\d+)\/comments$/.exec(rest);
  if (m && method === "GET") {
    const n = Number(m[1]);
    if (!ctx.hasPull(n)) return [404, { message: "Not Found" }];
    const list = [...s.reviewComments.values()].filter((c) => c.pull === n);
    const perPage = Number(query.per_page ?? 30);
    const page = Number(query.page ?? 1);
    return [200, list.slice((page - 1) * perPage, page * perPage).map((c) => commentJson(ctx, c))];
  }
  m = /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(rest);
  if (m && method === "POST") {
    const target = s.reviewComments.get(Number(m[2]));
    if (!target || target.pull !== Number(m[1])) return [404, { message: "Not Found" }];
    // GitHub: replies to replies are not supported.
    if (target.inReplyTo !== null) return [422, { message: "Validation Failed: in_reply_to_id is a reply" }];
    if (typeof body.body !== "string" || body.body.length > 65536) return [422, { message: "body" }];
    const reply: FakeReviewComment = {
      ...target,
      id: ctx.nextId(),
      reviewId: ctx.nextId(),
      inReplyTo: target.id,
      user: ctx.bot,
      body: body.body,
    };
    s.reviewComments.set(reply.id, reply);
    return [201, commentJson(ctx, reply)];
  }
  m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest);
  if (m && method === "GET") {
    const ref = decodeURIComponent(m[1]!);
    const list = [...s.checkRuns.values()].filter((r) => r.headSha === ref);
    const perPage = Number(query.per_page ?? 30);
    const page = Number(query.page ?? 1);
    return [
      200,
      {
        total_count: list.length,
        check_runs: list.slice((page - 1) * perPage, page * perPage).map((r) => checkRunJson(ctx, r)),
      },
    ];
  }
  m = /^\/check-runs\/(\d+)\/annotations$/.exec(rest);
  if (m && method === "GET") {
    const r = s.checkRuns.get(Number(m[1]));
    if (!r) return [404, { message: "Not Found" }];
    return [200, r.annotations.slice(0, Number(query.per_page ?? 30))];
  }
  return null;
}

/** `GET /repos/{o}/{r}/actions/jobs/{id}/logs`: a 302 to the log's download URL (or 404). */
export function logRedirect(s: PullsState, ctx: PullsContext, rest: string): string | null | undefined {
  const m = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest);
  if (!m) return undefined;
  const r = s.checkRuns.get(Number(m[1]));
  if (!r || r.log === undefined) return null;
  return `${ctx.baseUrl}/_job-logs/${ctx.owner}/${ctx.name}/${r.id}`;
}

/**
 * A log download (`/_job-logs/{owner}/{repo}/{id}`), served without authentication as storage serves
 * it: a suffix range (`Range: bytes=-N`) gets the last N bytes with 206, unless the run says the server
 * ignores ranges.
 */
export function logDownload(
  s: PullsState,
  rest: string,
  range: string | undefined,
): { status: number; headers: Record<string, string>; body: Buffer } | null {
  const m = /^\/(\d+)$/.exec(rest);
  const run = m ? s.checkRuns.get(Number(m[1])) : undefined;
  if (run?.log === undefined) return null;
  const bytes = Buffer.from(run.log, "utf8");
  const suffix = /^bytes=-(\d+)$/.exec(range ?? "");
  if (!suffix || run.logIgnoresRange) {
    return { status: 200, headers: { "accept-ranges": run.logIgnoresRange ? "none" : "bytes" }, body: bytes };
  }
  const start = Math.max(0, bytes.length - Number(suffix[1]));
  return {
    status: 206,
    headers: {
      "accept-ranges": "bytes",
      "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}`,
    },
    body: bytes.subarray(start),
  };
}

/** The GraphQL query the app makes for resolved review threads, answered from the state. */
export function answerGraphql(
  states: (owner: string, name: string) => PullsState | null,
  body: Record<string, unknown>,
): [number, unknown] {
  const query = String(body.query ?? "");
  const v = (body.variables ?? {}) as { owner?: string; repo?: string; number?: number };
  if (!query.includes("reviewThreads")) {
    return [200, { errors: [{ message: "the fake answers only reviewThreads queries" }] }];
  }
  const s = states(String(v.owner), String(v.repo));
  if (!s) return [200, { data: { repository: null }, errors: [{ type: "NOT_FOUND", message: "no repo" }] }];
  const tops = [...s.reviewComments.values()].filter((c) => c.pull === v.number && c.inReplyTo === null);
  const nodes = tops.map((t) => ({
    isResolved: s.resolvedThreads.has(t.id),
    comments: {
      nodes: [t, ...[...s.reviewComments.values()].filter((c) => c.inReplyTo === t.id)].map((c) => ({
        databaseId: c.id,
      })),
    },
  }));
  return [
    200,
    {
      data: {
        repository: {
          pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes } },
        },
      },
    },
  ];
}
