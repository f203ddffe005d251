import { z } from "zod";

/**
 * Hidden markers in the app's comments and pull requests. The status comment carries the issue's run
 * history (base64 JSON, so no text can close the HTML comment early); GitHub keeps it durable for us.
 */

const STATUS_PREFIX = "<!-- auto-fix:status ";
const PR_PREFIX = "<!-- auto-fix:pr ";
const DENIED_PREFIX = "<!-- auto-fix:denied ";

const IssueStateSchema = z.object({
  runs: z.number().int().nonnegative().catch(0),
  /** The reviewer's advice from the last run, fed into the next run's prompts. */
  advice: z.string().max(8000).optional().catch(undefined),
  /** The pull request the app opened for this issue. */
  pull: z.number().int().positive().optional().catch(undefined),
  /** The webhook delivery that started the latest run (a redelivery of it starts nothing). */
  delivery: z.string().max(200).optional().catch(undefined),
  /** Automatic runs after a failing check since the last run a person started (`ci_retries`). */
  ciRetries: z.number().int().nonnegative().optional().catch(undefined),
  /** A digest of each recent run's patch, so that a retry can say whether its patch changed. */
  patches: z
    .array(z.object({ run: z.number().int().positive(), sha: z.string().regex(/^[0-9a-f]{16}$/) }))
    .max(20)
    .optional()
    .catch(undefined),
  /** The guidance the last run that pushed a patch followed (what a retry's guidance changed). */
  guidance: z.string().max(2000).optional().catch(undefined),
});
export type IssueState = z.infer<typeof IssueStateSchema>;

export function statusMarker(state: IssueState): string {
  return `${STATUS_PREFIX}${Buffer.from(JSON.stringify(state)).toString("base64")} -->`;
}

/** The state in a status comment's marker, or null when the text carries none. */
export function readStatusMarker(body: string): IssueState | null {
  const i = body.indexOf(STATUS_PREFIX);
  if (i < 0) return null;
  const end = body.indexOf(" -->", i);
  if (end < 0) return null;
  try {
    const json: unknown = JSON.parse(
      Buffer.from(body.slice(i + STATUS_PREFIX.length, end), "base64").toString(),
    );
    const parsed = IssueStateSchema.safeParse(json);
    return parsed.success ? parsed.data : { runs: 0 };
  } catch {
    return { runs: 0 };
  }
}

export function pullMarker(issueNumber: number): string {
  return `${PR_PREFIX}issue=${issueNumber} -->`;
}

/** The issue number a pull request body says it fixes (the app's marker), or null. */
export function readPullMarker(body: string): number | null {
  const m = /<!-- auto-fix:pr issue=(\d+) -->/.exec(body);
  return m ? Number(m[1]) : null;
}

export function deniedMarker(login: string): string {
  return `${DENIED_PREFIX}${login.toLowerCase()} -->`;
}
