import type { ProbotOctokit } from "probot";
import { GitHubApiError, toGitHubApiError } from "./errors.ts";
import type {
  CommentInfo,
  IssueInfo,
  Permission,
  PullInfo,
  Reaction,
  RepoFileRead,
  RepoGitHub,
} from "./port.ts";

type Octokit = InstanceType<typeof ProbotOctokit>;

const PERMISSIONS = new Set<Permission>(["admin", "maintain", "write", "triage", "read", "none"]);

/** Runs one REST call (or one paginated listing); whatever fails is a `GitHubApiError` naming the route. */
async function api<T>(method: string, route: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toGitHubApiError(error, method, route);
  }
}

interface RawComment {
  id: number;
  body?: string | null;
  user?: { login?: string; type?: string } | null;
  html_url: string;
}

function toComment(c: RawComment): CommentInfo {
  return {
    id: c.id,
    body: c.body ?? "",
    authorLogin: c.user?.login ?? "",
    authorType: c.user?.type ?? "",
    url: c.html_url,
  };
}

/** `RepoGitHub` on an installation-authenticated Probot octokit (honours GHE_HOST through its baseUrl). */
export function createOctokitGitHub(octokit: Octokit, owner: string, repo: string): RepoGitHub {
  return {
    owner,
    repo,
    async permission(login) {
      try {
        const { data } = await api("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", () =>
          octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: login }),
        );
        // `role_name` distinguishes maintain from write; `permission` folds maintain into write.
        const role = String((data as { role_name?: string }).role_name ?? data.permission);
        if (PERMISSIONS.has(role as Permission)) return role as Permission;
        return PERMISSIONS.has(data.permission as Permission) ? (data.permission as Permission) : "none";
      } catch (error) {
        // Not a collaborator (or not a user): no access.
        if (error instanceof GitHubApiError && error.status === 404) return "none";
        throw error;
      }
    },
    async getIssue(issueNumber) {
      const { data } = await api("GET", "/repos/{owner}/{repo}/issues/{issue_number}", () =>
        octokit.rest.issues.get({ owner, repo, issue_number: issueNumber }),
      );
      const issue: IssueInfo = {
        number: data.number,
        title: data.title,
        body: data.body ?? "",
        state: data.state === "closed" ? "closed" : "open",
        locked: data.locked === true,
        isPullRequest: data.pull_request != null,
        authorLogin: data.user?.login ?? "",
        authorType: data.user?.type ?? "",
      };
      return issue;
    },
    async listComments(issueNumber) {
      const all = await api("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", () =>
        octokit.paginate(octokit.rest.issues.listComments, {
          owner,
          repo,
          issue_number: issueNumber,
          per_page: 100,
        }),
      );
      return all.map((c) => toComment(c as RawComment));
    },
    async createComment(issueNumber, body) {
      const { data } = await api("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", () =>
        octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body }),
      );
      return toComment(data as RawComment);
    },
    async updateComment(commentId, body) {
      await api("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", () =>
        octokit.rest.issues.updateComment({ owner, repo, comment_id: commentId, body }),
      );
    },
    async reactToIssue(issueNumber, content: Reaction) {
      await api("POST", "/repos/{owner}/{repo}/issues/{issue_number}/reactions", () =>
        octokit.rest.reactions.createForIssue({ owner, repo, issue_number: issueNumber, content }),
      );
    },
    async reactToComment(commentId, content: Reaction) {
      await api("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", () =>
        octokit.rest.reactions.createForIssueComment({ owner, repo, comment_id: commentId, content }),
      );
    },
    async findOpenPull(branch) {
      const { data } = await api("GET", "/repos/{owner}/{repo}/pulls", () =>
        octokit.rest.pulls.list({ owner, repo, head: `${owner}:${branch}`, state: "open" }),
      );
      const p = data[0];
      return p
        ? { number: p.number, title: p.title, body: p.body ?? "", url: p.html_url, head: p.head.ref }
        : null;
    },
    async createPull(pull) {
      const { data } = await api("POST", "/repos/{owner}/{repo}/pulls", () =>
        octokit.rest.pulls.create({ owner, repo, ...pull }),
      );
      const info: PullInfo = {
        number: data.number,
        title: data.title,
        body: data.body ?? "",
        url: data.html_url,
        head: data.head.ref,
      };
      return info;
    },
    async updatePull(pullNumber, changes) {
      await api("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", () =>
        octokit.rest.pulls.update({ owner, repo, pull_number: pullNumber, ...changes }),
      );
    },
    async readFile(path, maxBytes, ref): Promise<RepoFileRead> {
      let data: unknown;
      try {
        ({ data } = await api("GET", "/repos/{owner}/{repo}/contents/{path}", () =>
          octokit.rest.repos.getContent({ owner, repo, path, ...(ref ? { ref } : {}) }),
        ));
      } catch (error) {
        if (error instanceof GitHubApiError && error.status === 404) return { kind: "missing" };
        throw error;
      }
      if (Array.isArray(data)) return { kind: "unusable", reason: `${path} is a folder, not a file` };
      const file = data as {
        type?: string;
        path?: string;
        size?: number;
        content?: string;
        encoding?: string;
      };
      // The API answers a link to a file with the target's own entry (another path): not followed.
      if (file.type !== "file" || file.path !== path) {
        return {
          kind: "unusable",
          reason: `${path} is a ${file.type === "file" ? "link" : (file.type ?? "special entry")}, not a file`,
        };
      }
      const size = Number(file.size ?? 0);
      if (size > maxBytes) {
        return { kind: "unusable", reason: `${path} is ${size} bytes, over the limit of ${maxBytes} bytes` };
      }
      if (file.encoding !== "base64" || typeof file.content !== "string") {
        return { kind: "unusable", reason: `${path} could not be read through the contents API` };
      }
      const bytes = Buffer.from(file.content, "base64");
      if (bytes.length > maxBytes) {
        return { kind: "unusable", reason: `${path} is over the limit of ${maxBytes} bytes` };
      }
      return { kind: "file", text: bytes.toString("utf8") };
    },
    async gitToken() {
      const auth = (await api("POST", "/app/installations/{installation_id}/access_tokens", () =>
        octokit.auth({ type: "installation" }),
      )) as { token?: unknown };
      if (typeof auth.token !== "string") throw new Error("no installation token available for git");
      return auth.token;
    },
  };
}
