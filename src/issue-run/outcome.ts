/** What the app did with one delivery or job step (logged, counted and shown in tests). */
export type HandleOutcome =
  | { action: "ignored"; reason: string }
  | { action: "denied" }
  | { action: "refused"; reason: string }
  | { action: "queued"; jobId: string }
  | { action: "duplicate"; jobId: string }
  | { action: "active"; jobId: string }
  /** `/cancel` was acknowledged; the permission check and the cancel run right after the answer. */
  | { action: "cancel-requested" }
  /**
   * Answered and held: the sender's access (and, for a label, the repo's configured label) is checked
   * right after the answer, and the job stored only then.
   */
  | { action: "checking" }
  | { action: "cancelled" }
  | { action: "nothing-to-cancel" }
  /** A maintainer approved CI on the app's branch: `commit` (no `[skip ci]`) was pushed on top of it. */
  | { action: "ci-approved"; commit: string }
  /** Dropped unanswered before any GitHub call: the sender or the repository sent too many commands. */
  | { action: "limited"; reason: string };
