import type { RepoGitHub } from "../github/port.ts";
import {
  renderStatus,
  STAGES,
  type StageLine,
  type StageName,
  type StatusView,
} from "../github/render/status-comment.ts";

/** Least time between two writes of the status comment (GitHub asks for a second between mutations). */
export const MIN_EDIT_GAP_MS = 1000;

/** Writes of the same state tried in a row before the updater waits for the next change. */
const MAX_WRITE_TRIES = 3;

/** Time as the updater sees it: injectable so that tests need not wait or depend on machine speed. */
export interface StatusClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: StatusClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Keeps the status comment in step with the run. Edits coalesce: changes made while a write is in
 * flight, or within a second of the last write, wait and go out together as one edit of the latest text;
 * an edit is only sent when the text differs from what the comment shows, and the latest state is always
 * written in the end (`flush()` resolves once the comment shows it).
 */
export class StatusUpdater {
  readonly view: StatusView;
  readonly #github: RepoGitHub;
  readonly #issueNumber: number;
  readonly #clock: StatusClock;
  readonly #gapMs: number;
  #commentId = 0;
  #last = "";
  /** A text whose writes all failed: not tried again until the view changes. */
  #abandoned: string | null = null;
  /** When the last write finished (the next may start MIN_EDIT_GAP_MS later). */
  #lastWrite = Number.NEGATIVE_INFINITY;
  #inFlight: Promise<void> | null = null;

  constructor(
    github: RepoGitHub,
    issueNumber: number,
    view: StatusView,
    options: { clock?: StatusClock; gapMs?: number } = {},
  ) {
    this.#github = github;
    this.#issueNumber = issueNumber;
    this.view = view;
    this.#clock = options.clock ?? realClock;
    this.#gapMs = options.gapMs ?? MIN_EDIT_GAP_MS;
  }

  /** Posts the status comment, or takes over the issue's existing one; returns its id. */
  async open(existingId: number): Promise<number> {
    if (existingId > 0) {
      // The comment may have just been written (when the run was admitted): its first edit here keeps
      // the second's distance like every other.
      this.#commentId = existingId;
      this.#lastWrite = this.#clock.now();
      this.#last = "";
      await this.flush();
      return this.#commentId;
    }
    const text = renderStatus(this.view);
    this.#commentId = (await this.#github.createComment(this.#issueNumber, text)).id;
    this.#last = text;
    this.#lastWrite = this.#clock.now();
    return this.#commentId;
  }

  stage(name: StageName, line: StageLine): void {
    this.view.stages[name] = line;
    // flush() never rejects: a failed edit is retried with the next change.
    void this.flush();
  }

  /**
   * Writes the current view. One writer at a time: a call while it runs joins it, and the writer renders
   * the view again after each write, so the latest state is what the comment ends with.
   */
  flush(): Promise<void> {
    if (this.#commentId === 0) return Promise.resolve();
    // A writer about to finish may have looked before this change: look again once it is done.
    if (this.#inFlight !== null) return this.#inFlight.then(() => this.flush());
    const text = renderStatus(this.view);
    if (text === this.#last || text === this.#abandoned) return Promise.resolve();
    this.#inFlight = this.#drain().finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  async #drain(): Promise<void> {
    let failures = 0;
    for (;;) {
      if (renderStatus(this.view) === this.#last) return;
      // Wait out the gap since the last write; changes made meanwhile join this edit.
      for (;;) {
        const wait = this.#lastWrite + this.#gapMs - this.#clock.now();
        if (wait <= 0) break;
        await this.#clock.sleep(wait);
      }
      const text = renderStatus(this.view);
      if (text === this.#last) return;
      try {
        await this.#github.updateComment(this.#commentId, text);
        this.#last = text;
        this.#abandoned = null;
        failures = 0;
      } catch {
        // Tried again a second later, twice; then left to the next change (or the final flush).
        this.#lastWrite = this.#clock.now();
        if (++failures >= MAX_WRITE_TRIES) {
          this.#abandoned = text;
          return;
        }
        continue;
      }
      this.#lastWrite = this.#clock.now();
    }
  }
}

/** The pipeline's stage names (`auto-fix fix` progress) and the status comment's. */
const PIPELINE_STAGES: Record<string, StageName> = {
  index: "indexed",
  reproduce: "reproduced",
  search: "located",
  patch: "patched",
  review: "reviewed",
  validate: "validated",
  regress: "tested",
};

/**
 * What a person reads beside a running stage, from the pipeline's progress detail: plain words for the
 * steps people care about, nothing for internal ones (strategy names, attempt labels, tree preparation).
 */
export function plainStageNote(stage: StageName, note: string | undefined): string | undefined {
  const n = note?.trim();
  if (!n) return undefined;
  if (n === "setup") return "running the repository's setup";
  const round = /^round (\d+)\/(\d+)$/.exec(n);
  if (round) return `search round ${round[1]} of at most ${round[2]}`;
  // Milestones whose note is for people: counts, files, verdicts.
  if (stage === "indexed") return /^\d+ files?$/.test(n) ? n : undefined;
  // The patch stage's notes name the strategy and its attempts: internal, left to the logs.
  if (stage === "patched") return undefined;
  return n;
}

/**
 * A pipeline stage began (`index`, `search`, ...): the stages running before it are done and it is
 * running. A status-comment stage name (`located`) marks that stage done.
 */
export function progress(status: StatusUpdater, stage: string, note: string | undefined): void {
  const started = PIPELINE_STAGES[stage];
  if (started) {
    for (const s of STAGES) {
      if (s !== started && status.view.stages[s]?.status === "running")
        status.view.stages[s] = { status: "done" };
    }
    const shown = plainStageNote(started, note);
    status.stage(started, { status: "running", ...(shown ? { note: shown } : {}) });
  } else if (
    (STAGES as readonly string[]).includes(stage) &&
    stage !== "cloned" &&
    stage !== "pull request"
  ) {
    const name = stage as StageName;
    const shown = plainStageNote(name, note);
    status.stage(name, { status: "done", ...(shown ? { note: shown } : {}) });
  }
}
