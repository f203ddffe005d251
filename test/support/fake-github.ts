import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  answerGraphql,
  type FakeCheckRun,
  type FakeReview,
  type FakeReviewComment,
  logDownload,
  logRedirect,
  newPullsState,
  type PullsState,
  routePulls,
} from "./fake-github-pulls.ts";

/** One REST call the fake answered, in order. */
export interface RecordedCall {
  method: string;
  /** Path below the API root, e.g. `/repos/o/r/issues/1/comments` (no `/api/v3`, no query). */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The Authorization header's scheme: "bearer" (app JWT), "token" (installation token) or "none". */
  auth: string;
  status: number;
  /** The client closed the connection before the answer (an aborted request). */
  abandoned?: boolean;
  /** The `x-github-request-id` the answer carried (every REST answer carries one, as on GitHub). */
  requestId?: string;
  /** Bytes of body a download (a job's log) sent. */
  bytesSent?: number;
}

/** An error answer the fake gives instead of the real one (a failing or rate-limiting GitHub). */
export interface InjectedFailure {
  status: number;
  message?: string;
  /** Extra response headers, e.g. `retry-after` or `x-ratelimit-remaining`. */
  headers?: Record<string, string>;
}

export interface FakeUser {
  login: string;
  type: "User" | "Bot";
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  locked: boolean;
  user: FakeUser;
  labels: string[];
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: FakeUser;
  /** Every body the comment had, oldest first (the creation included). */
  history: string[];
}

export interface FakePull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: "open" | "closed";
  user: FakeUser;
  /** The head commit when the repo has no `resolveRef` (default: forty zeros). */
  headSha?: string;
}

export interface FakeRepo {
  owner: string;
  name: string;
  defaultBranch: string;
  cloneUrl: string;
  issues: Map<number, FakeIssue>;
  pulls: Map<number, FakePull>;
  /** login → permission ("admin", "maintain", "write", "triage", "read"); absent → "none". */
  permissions: Map<string, string>;
  /** Repository files readable through the contents API (e.g. `.github/auto-fix.yml`). */
  files: Map<string, string>;
  reactions: { target: string; content: string }[];
  nextNumber: number;
  /** Reviews, review comments, check runs (`fake-github-pulls.ts`). */
  pullsState: PullsState;
  /** The commit a branch points at (e.g. from the git server); pull requests' `head.sha` use it. */
  resolveRef?: (ref: string) => string | null;
  /** A file at a ref other than the default branch (the contents API with `ref`). */
  readAt?: (ref: string, path: string) => string | null;
  /** The diff between two refs (a pull request with `Accept: application/vnd.github.diff`). */
  diffOf?: (base: string, head: string) => string;
}

export interface FakeGitHub {
  /** Value for GHE_HOST (host:port). Use with GHE_PROTOCOL=http. */
  host: string;
  /** The REST root, e.g. http://127.0.0.1:1234/api/v3 */
  apiUrl: string;
  calls: RecordedCall[];
  comments: Map<number, FakeComment>;
  /** The installation token handed out for every installation. */
  installationToken: string;
  /** The app's bot user: author of everything the app writes. */
  bot: FakeUser;
  addRepo(owner: string, name: string, options: { cloneUrl: string; defaultBranch?: string }): FakeRepo;
  repo(owner: string, name: string): FakeRepo;
  addIssue(owner: string, name: string, issue: Partial<FakeIssue> & { title: string }): FakeIssue;
  /** Adds a comment written by someone else (a human or the app's bot). */
  addComment(owner: string, name: string, issueNumber: number, body: string, user: FakeUser): FakeComment;
  commentsOn(owner: string, name: string, issueNumber: number): FakeComment[];
  /** Adds a submitted review with its line comments (as GitHub stores them before the webhooks). */
  addReview(
    owner: string,
    name: string,
    pull: number,
    review: {
      user: FakeUser;
      state: FakeReview["state"];
      body: string;
      comments?: {
        path: string;
        line: number | null;
        startLine?: number;
        side?: "LEFT" | "RIGHT";
        body: string;
        inReplyTo?: number;
        diffHunk?: string;
      }[];
    },
  ): { review: FakeReview; comments: FakeReviewComment[] };
  addCheckRun(
    owner: string,
    name: string,
    run: Partial<FakeCheckRun> & { name: string; headSha: string },
  ): FakeCheckRun;
  /**
   * Holds every response until the returned function is called (a slow or unreachable GitHub): calls are
   * still recorded, with `status` 0 until answered.
   */
  holdResponses(): () => void;
  /** Holds the answers to the calls `matches` picks (recorded at once, answered on release). */
  holdMatching(matches: (call: RecordedCall) => boolean): () => void;
  /** Answers the next `times` REST calls `matches` picks with `failure` instead (default once). */
  failMatching(matches: (call: RecordedCall) => boolean, failure: InjectedFailure, times?: number): void;
  /** The app's webhook settings (`GET /app/hook/config`); set by a registration, or by a test. */
  hookConfig: { url: string | null };
  /** Apps registered through the manifest flow (the manifest as GitHub received it). */
  registrations: {
    manifest: Record<string, unknown>;
    state: string | null;
    id: number;
    pem: string;
    secret: string;
  }[];
  close(): Promise<void>;
}

const API_PREFIX = "/api/v3";

/** A redirect (`Location`), e.g. to a job log's download. */
class Redirect {
  readonly location: string;
  constructor(location: string) {
    this.location = location;
  }
}

/** A body sent as-is (the contents API with `Accept: application/vnd.github.raw`). */
class RawText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

function userJson(u: FakeUser): Record<string, unknown> {
  return { login: u.login, type: u.type, id: u.login.length * 1000 + 7 };
}

/**
 * A fake GitHub REST API on 127.0.0.1 (the GitHub Enterprise path layout, `/api/v3`), holding repos,
 * issues, comments, pull requests, permissions and reactions in memory and recording every call.
 * It answers the endpoints the app uses with GitHub's shapes and status codes; anything else is 404.
 */
export async function startFakeGitHub(options: { botLogin?: string } = {}): Promise<FakeGitHub> {
  const calls: RecordedCall[] = [];
  const repos = new Map<string, FakeRepo>();
  const comments = new Map<number, FakeComment>();
  const bot: FakeUser = { login: options.botLogin ?? "auto-fix[bot]", type: "Bot" };
  const installationToken = "ghs_fakeInstallationToken0123456789";
  let nextCommentId = 1000;
  let baseUrl = "";
  const hookConfig: { url: string | null } = { url: null };
  const registrations: FakeGitHub["registrations"] = [];
  /** Manifest-flow codes not yet exchanged: code → manifest. */
  const codes = new Map<string, { manifest: Record<string, unknown>; state: string | null }>();

  /**
   * GitHub's web side of the manifest flow: the browser posts the form (`manifest`, `state` in the query)
   * to `/settings/apps/new` (or an organization's); GitHub creates the app and redirects to the
   * manifest's `redirect_url` with a one-time `code` (and the `state`).
   */
  const webRoute = (
    method: string,
    path: string,
    query: Record<string, string>,
    raw: string,
  ): [number, Record<string, string>, string] | null => {
    if (method !== "POST" || !/^(\/organizations\/[^/]+)?\/settings\/apps\/new$/.test(path)) return null;
    const form = new URLSearchParams(raw);
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(form.get("manifest") ?? "") as Record<string, unknown>;
    } catch {
      return [422, {}, "manifest is not JSON"];
    }
    const hook = manifest.hook_attributes as { url?: unknown } | undefined;
    if (
      typeof manifest.url !== "string" ||
      typeof hook?.url !== "string" ||
      typeof manifest.redirect_url !== "string"
    ) {
      return [422, {}, "manifest lacks url, hook_attributes.url or redirect_url"];
    }
    const code = randomBytes(10).toString("hex");
    const state = query.state ?? null;
    codes.set(code, { manifest, state });
    const target = new URL(manifest.redirect_url);
    target.searchParams.set("code", code);
    if (state) target.searchParams.set("state", state);
    return [302, { location: target.href }, ""];
  };

  const issueJson = (r: FakeRepo, i: FakeIssue): Record<string, unknown> => ({
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    locked: i.locked,
    user: userJson(i.user),
    labels: i.labels.map((name) => ({ name })),
    html_url: `${baseUrl}/${r.owner}/${r.name}/issues/${i.number}`,
  });
  const commentJson = (r: FakeRepo, c: FakeComment): Record<string, unknown> => ({
    id: c.id,
    body: c.body,
    user: userJson(c.user),
    html_url: `${baseUrl}/${r.owner}/${r.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
  });
  const pullJson = (r: FakeRepo, p: FakePull): Record<string, unknown> => ({
    number: p.number,
    title: p.title,
    body: p.body,
    draft: p.draft,
    state: p.state,
    locked: false,
    user: userJson(p.user),
    head: {
      ref: p.head,
      label: `${r.owner}:${p.head}`,
      sha: r.resolveRef?.(p.head) ?? p.headSha ?? "0".repeat(40),
    },
    base: { ref: p.base },
    html_url: `${baseUrl}/${r.owner}/${r.name}/pull/${p.number}`,
  });

  const route = (
    method: string,
    path: string,
    query: Record<string, string>,
    body: Record<string, unknown>,
    accept: string,
  ): [number, unknown] => {
    if (path === "/api/graphql" && method === "POST") {
      return answerGraphql((o, n) => repos.get(`${o}/${n}`)?.pullsState ?? null, body);
    }
    if (path === "/app/hook/config" && method === "GET") {
      return [200, { content_type: "json", insecure_ssl: "0", url: hookConfig.url }];
    }
    let m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (m && method === "POST") {
      return [
        201,
        {
          token: installationToken,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
          permissions: { issues: "write", pull_requests: "write", contents: "write", metadata: "read" },
          repository_selection: "all",
        },
      ];
    }
    m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!m) return [404, { message: "Not Found" }];
    const r = repos.get(`${m[1]}/${m[2]}`);
    if (!r) return [404, { message: "Not Found" }];
    const rest = m[3] ?? "";
    const pullsCtx = {
      owner: r.owner,
      name: r.name,
      baseUrl,
      bot,
      nextId: () => nextCommentId++,
      hasPull: (n: number) => r.pulls.has(n),
    };
    const pulled = routePulls(r.pullsState, pullsCtx, method, rest, query, body);
    if (pulled) return pulled;
    const logAt = method === "GET" ? logRedirect(r.pullsState, pullsCtx, rest) : undefined;
    if (logAt === null) return [404, { message: "Not Found" }];
    if (logAt !== undefined) return [302, new Redirect(logAt)];
    if (rest === "" && method === "GET") {
      return [
        200,
        {
          name: r.name,
          full_name: `${r.owner}/${r.name}`,
          owner: { login: r.owner },
          default_branch: r.defaultBranch,
          clone_url: r.cloneUrl,
        },
      ];
    }
    m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest);
    if (m && method === "GET") {
      const login = decodeURIComponent(m[1]!);
      const permission = r.permissions.get(login);
      if (permission === undefined) return [404, { message: `${login} is not a user` }];
      return [200, { permission, role_name: permission, user: { login, type: "User" } }];
    }
    m = /^\/contents\/(.+)$/.exec(rest);
    if (m && method === "GET") {
      const file = decodeURIComponent(m[1]!);
      const atRef = query.ref !== undefined && query.ref !== r.defaultBranch;
      const text = atRef ? (r.readAt?.(query.ref!, file) ?? undefined) : r.files.get(file);
      if (text === undefined) return [404, { message: "Not Found" }];
      if (accept.includes(".raw")) return [200, new RawText(text)];
      return [
        200,
        {
          type: "file",
          encoding: "base64",
          path: decodeURIComponent(m[1]!),
          content: Buffer.from(text).toString("base64"),
        },
      ];
    }
    m = /^\/issues\/(\d+)$/.exec(rest);
    if (m && method === "GET") {
      const issue = r.issues.get(Number(m[1]));
      return issue ? [200, issueJson(r, issue)] : [404, { message: "Not Found" }];
    }
    m = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (m) {
      const n = Number(m[1]);
      if (!r.issues.has(n) && !r.pulls.has(n)) return [404, { message: "Not Found" }];
      if (method === "GET") {
        const list = [...comments.values()].filter((c) => c.issueNumber === n && commentRepo.get(c.id) === r);
        const perPage = Number(query.per_page ?? 30);
        const page = Number(query.page ?? 1);
        return [200, list.slice((page - 1) * perPage, page * perPage).map((c) => commentJson(r, c))];
      }
      if (method === "POST") {
        if (typeof body.body !== "string") return [422, { message: "body is missing" }];
        if (body.body.length > 65536)
          return [422, { message: "body is too long (maximum is 65536 characters)" }];
        const c: FakeComment = {
          id: nextCommentId++,
          issueNumber: n,
          body: body.body,
          user: bot,
          history: [body.body],
        };
        comments.set(c.id, c);
        commentRepo.set(c.id, r);
        return [201, commentJson(r, c)];
      }
    }
    m = /^\/issues\/comments\/(\d+)$/.exec(rest);
    if (m && method === "PATCH") {
      const c = comments.get(Number(m[1]));
      if (!c || commentRepo.get(c.id) !== r) return [404, { message: "Not Found" }];
      if (typeof body.body !== "string") return [422, { message: "body is missing" }];
      if (body.body.length > 65536)
        return [422, { message: "body is too long (maximum is 65536 characters)" }];
      c.body = body.body;
      c.history.push(body.body);
      return [200, commentJson(r, c)];
    }
    m = /^\/issues\/(?:comments\/)?(\d+)\/reactions$/.exec(rest);
    if (m && method === "POST") {
      const target = rest.includes("/comments/") ? `comment:${m[1]}` : `issue:${m[1]}`;
      r.reactions.push({ target, content: String(body.content) });
      return [201, { id: r.reactions.length, content: body.content }];
    }
    if (rest === "/pulls" && method === "GET") {
      const head = query.head;
      const state = query.state ?? "open";
      const list = [...r.pulls.values()].filter(
        (p) =>
          (head === undefined || `${r.owner}:${p.head}` === head) && (state === "all" || p.state === state),
      );
      return [200, list.map((p) => pullJson(r, p))];
    }
    if (rest === "/pulls" && method === "POST") {
      const { title, head, base } = body;
      if (typeof title !== "string" || typeof head !== "string" || typeof base !== "string") {
        return [422, { message: "Validation Failed" }];
      }
      if (typeof body.body === "string" && body.body.length > 65536) {
        return [422, { message: "body is too long (maximum is 65536 characters)" }];
      }
      if ([...r.pulls.values()].some((p) => p.head === head && p.state === "open")) {
        return [422, { message: `A pull request already exists for ${r.owner}:${head}.` }];
      }
      const p: FakePull = {
        number: r.nextNumber++,
        title,
        body: typeof body.body === "string" ? body.body : "",
        head,
        base,
        draft: body.draft === true,
        state: "open",
        user: bot,
      };
      r.pulls.set(p.number, p);
      return [201, pullJson(r, p)];
    }
    m = /^\/pulls\/(\d+)$/.exec(rest);
    if (m) {
      const p = r.pulls.get(Number(m[1]));
      if (!p) return [404, { message: "Not Found" }];
      if (method === "GET" && accept.includes(".diff")) {
        return [200, new RawText(r.diffOf?.(p.base, p.head) ?? "")];
      }
      if (method === "GET") return [200, pullJson(r, p)];
      if (method === "PATCH") {
        if (typeof body.body === "string") {
          if (body.body.length > 65536) return [422, { message: "body is too long" }];
          p.body = body.body;
        }
        if (typeof body.title === "string") p.title = body.title;
        return [200, pullJson(r, p)];
      }
    }
    return [404, { message: "Not Found" }];
  };
  const commentRepo = new Map<number, FakeRepo>();

  let held: Promise<void> | null = null;
  let requestCount = 0;
  const failures: { matches: (call: RecordedCall) => boolean; failure: InjectedFailure; left: number }[] = [];
  const heldMatching = new Set<{ matches: (call: RecordedCall) => boolean; gate: Promise<void> }>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) : url.pathname;
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const authHeader = String(req.headers.authorization ?? "");
      const auth = authHeader.split(" ")[0]?.toLowerCase() || "none";
      const method = req.method ?? "GET";
      const call: RecordedCall = {
        method,
        path: decodeURIComponent(path),
        query: Object.fromEntries(url.searchParams),
        body,
        auth,
        status: 0,
      };
      calls.push(call);
      res.once("close", () => {
        if (!res.writableFinished) call.abandoned = true;
      });
      while (held) await held;
      for (const h of [...heldMatching]) if (h.matches(call)) await h.gate;
      let status: number;
      let payload: unknown;
      const web = url.pathname.startsWith(API_PREFIX)
        ? null
        : webRoute(method, url.pathname, call.query, raw);
      if (web) {
        call.status = web[0];
        res.writeHead(web[0], { "content-type": "text/plain", ...web[1] }).end(web[2]);
        return;
      }
      // A job log's download: a storage URL that needs no token (GitHub's are signed).
      const download = /^\/_job-logs\/([^/]+)\/([^/]+)(\/.*)$/.exec(url.pathname);
      if (download && method === "GET") {
        const served = logDownload(
          repos.get(`${download[1]}/${download[2]}`)?.pullsState ?? newPullsState(),
          download[3]!,
          req.headers.range,
        );
        call.status = served?.status ?? 404;
        call.bytesSent = served?.body.length ?? 0;
        res
          .writeHead(call.status, { "content-type": "text/plain; charset=utf-8", ...served?.headers })
          .end(served?.body ?? "Not Found");
        return;
      }
      const conversion = /^\/app-manifests\/([^/]+)\/conversions$/.exec(path);
      if (conversion && method === "POST") {
        // Unauthenticated, as on GitHub: the one-time code is the credential.
        const pending = codes.get(decodeURIComponent(conversion[1]!));
        if (!pending) {
          [status, payload] = [404, { message: "Not Found" }];
        } else {
          codes.delete(decodeURIComponent(conversion[1]!));
          const id = 100 + registrations.length;
          const pem = generateKeyPairSync("rsa", { modulusLength: 2048 })
            .privateKey.export({ type: "pkcs1", format: "pem" })
            .toString();
          const secret = randomBytes(20).toString("hex");
          registrations.push({ manifest: pending.manifest, state: pending.state, id, pem, secret });
          hookConfig.url = String((pending.manifest.hook_attributes as { url: string }).url);
          const slug = String(pending.manifest.name ?? "app");
          [status, payload] = [
            201,
            {
              id,
              slug,
              name: slug,
              html_url: `${baseUrl}/apps/${slug}`,
              pem,
              webhook_secret: secret,
              client_id: `Iv1.${randomBytes(8).toString("hex")}`,
              client_secret: randomBytes(20).toString("hex"),
            },
          ];
        }
        call.status = status;
        res
          .writeHead(status, { "content-type": "application/json; charset=utf-8" })
          .end(JSON.stringify(payload));
        return;
      }
      call.requestId = `F${(++requestCount).toString(16).toUpperCase().padStart(4, "0")}:${randomBytes(4).toString("hex").toUpperCase()}`;
      const injected = failures.find((f) => f.left > 0 && f.matches(call));
      if (injected) {
        injected.left--;
        call.status = injected.failure.status;
        res.writeHead(injected.failure.status, {
          "content-type": "application/json; charset=utf-8",
          "x-github-request-id": call.requestId,
          ...injected.failure.headers,
        });
        res.end(JSON.stringify({ message: injected.failure.message ?? "Injected failure" }));
        return;
      }
      if (auth === "none") {
        [status, payload] = [401, { message: "Requires authentication" }];
      } else {
        const obj = body && typeof body === "object" ? (body as Record<string, unknown>) : {};
        [status, payload] = route(method, path, call.query, obj, String(req.headers.accept ?? ""));
      }
      call.status = status;
      const requestId = { "x-github-request-id": call.requestId };
      if (payload instanceof Redirect) {
        res.writeHead(status, { location: payload.location, ...requestId }).end();
        return;
      }
      if (payload instanceof RawText) {
        res.writeHead(status, { "content-type": "application/vnd.github.raw; charset=utf-8", ...requestId });
        res.end(payload.text);
        return;
      }
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...requestId });
      res.end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  const getRepo = (owner: string, name: string): FakeRepo => {
    const r = repos.get(`${owner}/${name}`);
    if (!r) throw new Error(`fake GitHub: no repo ${owner}/${name}`);
    return r;
  };

  return {
    failMatching(matches, failure, times = 1) {
      failures.push({ matches, failure, left: times });
    },
    holdMatching(matches) {
      let release = () => {};
      const entry = {
        matches,
        gate: new Promise<void>((resolve) => {
          release = () => {
            heldMatching.delete(entry);
            resolve();
          };
        }),
      };
      heldMatching.add(entry);
      return release;
    },
    holdResponses() {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = () => {
          if (held === gate) held = null;
          resolve();
        };
      });
      held = gate;
      return release;
    },
    hookConfig,
    registrations,
    host: `127.0.0.1:${port}`,
    apiUrl: `${baseUrl}${API_PREFIX}`,
    calls,
    comments,
    installationToken,
    bot,
    addRepo(owner, name, opts) {
      const r: FakeRepo = {
        owner,
        name,
        defaultBranch: opts.defaultBranch ?? "main",
        cloneUrl: opts.cloneUrl,
        issues: new Map(),
        pulls: new Map(),
        permissions: new Map(),
        files: new Map(),
        reactions: [],
        nextNumber: 1,
        pullsState: newPullsState(),
      };
      repos.set(`${owner}/${name}`, r);
      return r;
    },
    repo: getRepo,
    addIssue(owner, name, partial) {
      const r = getRepo(owner, name);
      const issue: FakeIssue = {
        number: partial.number ?? r.nextNumber,
        title: partial.title,
        body: partial.body ?? "",
        state: partial.state ?? "open",
        locked: partial.locked ?? false,
        user: partial.user ?? { login: "reporter", type: "User" },
        labels: partial.labels ?? [],
      };
      r.nextNumber = Math.max(r.nextNumber, issue.number + 1);
      r.issues.set(issue.number, issue);
      return issue;
    },
    addComment(owner, name, issueNumber, body, user) {
      const r = getRepo(owner, name);
      const c: FakeComment = { id: nextCommentId++, issueNumber, body, user, history: [body] };
      comments.set(c.id, c);
      commentRepo.set(c.id, r);
      return c;
    },
    commentsOn(owner, name, issueNumber) {
      const r = getRepo(owner, name);
      return [...comments.values()].filter(
        (c) => c.issueNumber === issueNumber && commentRepo.get(c.id) === r,
      );
    },
    addReview(owner, name, pull, spec) {
      const r = getRepo(owner, name);
      const p = r.pulls.get(pull);
      if (!p) throw new Error(`fake GitHub: no pull request #${pull}`);
      const review: FakeReview = {
        id: nextCommentId++,
        pull,
        state: spec.state,
        body: spec.body,
        user: spec.user,
        commitId: r.resolveRef?.(p.head) ?? p.headSha ?? "0".repeat(40),
      };
      r.pullsState.reviews.set(review.id, review);
      const comments = (spec.comments ?? []).map((c) => {
        const rc: FakeReviewComment = {
          id: nextCommentId++,
          pull,
          reviewId: review.id,
          inReplyTo: c.inReplyTo ?? null,
          user: spec.user,
          body: c.body,
          path: c.path,
          line: c.line,
          startLine: c.startLine ?? null,
          side: c.side ?? "RIGHT",
          diffHunk: c.diffHunk ?? `@@ -1,3 +1,3 @@ ${c.path}`,
        };
        r.pullsState.reviewComments.set(rc.id, rc);
        return rc;
      });
      return { review, comments };
    },
    addCheckRun(owner, name, run) {
      const r = getRepo(owner, name);
      const c: FakeCheckRun = {
        id: run.id ?? nextCommentId++,
        name: run.name,
        headSha: run.headSha,
        status: run.status ?? "completed",
        conclusion: run.conclusion === undefined ? "failure" : run.conclusion,
        appSlug: run.appSlug ?? "github-actions",
        output: run.output ?? { title: "", summary: "", text: "" },
        annotations: run.annotations ?? [],
        ...(run.log !== undefined ? { log: run.log } : {}),
        ...(run.logIgnoresRange ? { logIgnoresRange: true } : {}),
      };
      r.pullsState.checkRuns.set(c.id, c);
      return c;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
