import type { ProbotOctokit } from "probot";
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

function status(error: unknown): number | undefined {
  return typeof error === "object" && error !== null && "status" in error
    ? Number((error as { status: unknown }).status)
    : undefined;
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
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
          owner,
          repo,
          username: login,
        });
        // `role_name` distinguishes maintain from write; `permission` folds maintain into write.
        const role = String((data as { role_name?: string }).role_name ?? data.permission);
        if (PERMISSIONS.has(role as Permission)) return role as Permission;
        return PERMISSIONS.has(data.permission as Permission) ? (data.permission as Permission) : "none";
      } catch (error) {
        if (status(error) === 404) return "none";
        throw error;
      }
    },
    async getIssue(issueNumber) {
      const { data } = await octokit.rest.issues.get({ owner, repo, issue_number: issueNumber });
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
      const all = await octokit.paginate(octokit.rest.issues.listComments, {
        owner,
        repo,
        issue_number: issueNumber,
        per_page: 100,
      });
      return all.map((c) => toComment(c as RawComment));
    },
    async createComment(issueNumber, body) {
      const { data } = await octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: issueNumber,
        body,
      });
      return toComment(data as RawComment);
    },
    async updateComment(commentId, body) {
      await octokit.rest.issues.updateComment({ owner, repo, comment_id: commentId, body });
    },
    async reactToIssue(issueNumber, content: Reaction) {
      await octokit.rest.reactions.createForIssue({ owner, repo, issue_number: issueNumber, content });
    },
    async reactToComment(commentId, content: Reaction) {
      await octokit.rest.reactions.createForIssueComment({ owner, repo, comment_id: commentId, content });
    },
    async findOpenPull(branch) {
      const { data } = await octokit.rest.pulls.list({
        owner,
        repo,
        head: `${owner}:${branch}`,
        state: "open",
      });
      const p = data[0];
      return p
        ? { number: p.number, title: p.title, body: p.body ?? "", url: p.html_url, head: p.head.ref }
        : null;
    },
    async createPull(pull) {
      const { data } = await octokit.rest.pulls.create({ owner, repo, ...pull });
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
      await octokit.rest.pulls.update({ owner, repo, pull_number: pullNumber, ...changes });
    },
    async readFile(path, maxBytes): Promise<RepoFileRead> {
      let data: unknown;
      try {
        ({ data } = await octokit.rest.repos.getContent({ owner, repo, path }));
      } catch (error) {
        if (status(error) === 404) return { kind: "missing" };
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
      const auth = (await octokit.auth({ type: "installation" })) as { token?: unknown };
      if (typeof auth.token !== "string") throw new Error("no installation token available for git");
      return auth.token;
    },
  };
}
