import { z } from "zod";

/** The webhook fields the app acts on, validated (webhook bodies are a trust boundary). */

const User = z.object({ login: z.string(), type: z.string().default("User") });

const Repository = z.object({
  name: z.string(),
  owner: z.object({ login: z.string() }),
  clone_url: z.string().url(),
  default_branch: z.string().min(1),
});

const Issue = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullable().default(""),
  state: z.string(),
  locked: z.boolean().default(false),
  user: User.nullable().default(null),
  pull_request: z.unknown().optional(),
});

const LabeledPayload = z.object({
  action: z.literal("labeled"),
  label: z.object({ name: z.string() }).optional(),
  issue: Issue,
  repository: Repository,
  sender: User,
  installation: z.object({ id: z.number().int() }),
});

const CommentPayload = z.object({
  action: z.literal("created"),
  comment: z.object({ id: z.number().int(), body: z.string().nullable().default(""), user: User.nullable() }),
  issue: Issue,
  repository: Repository,
  sender: User,
  installation: z.object({ id: z.number().int() }),
});

export interface TriggerIssue {
  number: number;
  title: string;
  body: string;
  open: boolean;
  locked: boolean;
  isPullRequest: boolean;
  authorLogin: string;
  authorType: string;
}

export interface TriggerEvent {
  deliveryId: string;
  kind: "labeled" | "comment";
  installationId: number;
  owner: string;
  repo: string;
  cloneUrl: string;
  defaultBranch: string;
  sender: { login: string; type: string };
  label?: string;
  issue: TriggerIssue;
  comment?: { id: number; body: string };
}

function toIssue(i: z.infer<typeof Issue>): TriggerIssue {
  return {
    number: i.number,
    title: i.title,
    body: i.body ?? "",
    open: i.state === "open",
    locked: i.locked,
    isPullRequest: i.pull_request != null,
    authorLogin: i.user?.login ?? "",
    authorType: i.user?.type ?? "",
  };
}

/** Parses an `issues.labeled` or `issue_comment.created` payload; null when it lacks what a run needs. */
export function parseTrigger(
  deliveryId: string,
  kind: TriggerEvent["kind"],
  payload: unknown,
): TriggerEvent | null {
  if (kind === "labeled") {
    const p = LabeledPayload.safeParse(payload);
    if (!p.success) return null;
    const d = p.data;
    return { ...common(deliveryId, kind, d), ...(d.label ? { label: d.label.name } : {}) };
  }
  const p = CommentPayload.safeParse(payload);
  if (!p.success) return null;
  const d = p.data;
  return { ...common(deliveryId, kind, d), comment: { id: d.comment.id, body: d.comment.body ?? "" } };
}

/** The fields both trigger payloads carry. */
function common(
  deliveryId: string,
  kind: TriggerEvent["kind"],
  d: z.infer<typeof LabeledPayload> | z.infer<typeof CommentPayload>,
) {
  return {
    deliveryId,
    kind,
    installationId: d.installation.id,
    owner: d.repository.owner.login,
    repo: d.repository.name,
    cloneUrl: d.repository.clone_url,
    defaultBranch: d.repository.default_branch,
    sender: d.sender,
    issue: toIssue(d.issue),
  };
}
