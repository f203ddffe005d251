import type { RepoGitHub } from "../github/port.ts";
import {
  renderStatus,
  STAGES,
  type StageLine,
  type StageName,
  type StatusView,
} from "../github/render/status-comment.ts";

/** Keeps the status comment in step with the run: edits are serialised and identical texts skipped. */
export class StatusUpdater {
  readonly view: StatusView;
  readonly #github: RepoGitHub;
  readonly #issueNumber: number;
  #commentId = 0;
  #last = "";
  #inFlight: Promise<void> | null = null;

  constructor(github: RepoGitHub, issueNumber: number, view: StatusView) {
    this.#github = github;
    this.#issueNumber = issueNumber;
    this.view = view;
  }

  /** Posts the status comment, or takes over the issue's existing one; returns its id. */
  async open(existingId: number): Promise<number> {
    const text = renderStatus(this.view);
    this.#last = text;
    if (existingId > 0) {
      this.#commentId = existingId;
      await this.#github.updateComment(existingId, text);
    } else {
      this.#commentId = (await this.#github.createComment(this.#issueNumber, text)).id;
    }
    return this.#commentId;
  }

  stage(name: StageName, line: StageLine): void {
    this.view.stages[name] = line;
    // flush() never rejects: a failed edit is retried with the next change.
    void this.flush();
  }

  /**
   * Writes the current view. Edits coalesce: while one write is in flight, later changes wait for it
   * and go out together as one edit with the latest text (GitHub writes are spaced a second apart).
   */
  flush(): Promise<void> {
    if (this.#commentId === 0) return Promise.resolve();
    if (this.#inFlight !== null) return this.#inFlight;
    const text = renderStatus(this.view);
    if (text === this.#last) return Promise.resolve();
    this.#last = text;
    this.#inFlight = this.#github
      .updateComment(this.#commentId, text)
      .catch(() => {
        this.#last = "";
      })
      .finally(() => {
        this.#inFlight = null;
      })
      .then(() => this.flush());
    return this.#inFlight;
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
};

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
    status.stage(started, { status: "running", ...(note ? { note } : {}) });
  } else if (
    (STAGES as readonly string[]).includes(stage) &&
    stage !== "cloned" &&
    stage !== "pull request"
  ) {
    status.stage(stage as StageName, { status: "done", ...(note ? { note } : {}) });
  }
}
