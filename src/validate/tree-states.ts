import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RepoConfig } from "../config/index.ts";
import { makeWorkCopy, type SandboxPort, type WorkCopy } from "../sandbox/index.ts";
import { PristineTests } from "./baseline.ts";
import { runSetup, type SetupRun, type TestRun } from "./run-tests.ts";

/** A unified diff that `git apply` refused in a fresh copy. */
export class DiffApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DiffApplyError";
  }
}

function gitApply(dir: string, diff: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      ["apply", "--whitespace=nowarn", "-"],
      { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CEILING_DIRECTORIES: dir } },
      (err, _out, stderr) =>
        err ? reject(new DiffApplyError(`git apply failed: ${stderr.trim()}`)) : resolve(),
    );
    child.stdin?.end(diff);
  });
}

/**
 * The tree states a run needs, each a private copy of one prepared base: the base is the work tree after
 * the setup step (dependencies installed), copied fresh for every pristine run (reproducer before any
 * patch, baseline tests) and every patched run (reproducer and tests after a patch). No state leaks from
 * one run into another, and the pipeline's own work tree is never touched by a sandboxed command.
 */
export class TreeStates {
  readonly setup: SetupRun[];
  readonly #sandbox: SandboxPort;
  readonly #config: RepoConfig;
  readonly #scratch: string;
  readonly #base: string;
  readonly #copies: WorkCopy[] = [];
  readonly #abort = new AbortController();
  /** The unpatched tree's test results, computed once for the job and shared by every candidate. */
  readonly tests: PristineTests;

  private constructor(
    sandbox: SandboxPort,
    config: RepoConfig,
    scratch: string,
    base: string,
    setup: SetupRun[],
  ) {
    this.#sandbox = sandbox;
    this.#config = config;
    this.#scratch = scratch;
    this.#base = base;
    this.setup = setup;
    this.tests = new PristineTests({
      sandbox,
      config,
      pristine: () => this.pristine(),
      stop: this.#abort.signal,
    });
  }

  /** The repository configuration the trees were prepared with. */
  get config(): RepoConfig {
    return this.#config;
  }

  /** The sandbox the trees' commands run in. */
  get sandbox(): SandboxPort {
    return this.#sandbox;
  }

  static async prepare(opts: {
    sandbox: SandboxPort;
    config: RepoConfig;
    source: string;
  }): Promise<TreeStates> {
    const scratch = await mkdtemp(join(tmpdir(), "auto-fix-trees-"));
    // Traversable, not listable: the sandbox's unprivileged uid reaches the copies without a staging bind.
    await chmod(scratch, 0o711);
    let base: WorkCopy | null = null;
    try {
      base = await makeWorkCopy(opts.source, scratch);
      const setup = opts.config.setup.length > 0 ? await runSetup(opts.sandbox, base.dir, opts.config) : [];
      const states = new TreeStates(opts.sandbox, opts.config, scratch, base.dir, setup);
      states.#copies.push(base);
      return states;
    } catch (err) {
      await base?.dispose();
      await rm(scratch, { recursive: true, force: true });
      throw err;
    }
  }

  /** Whether every setup command succeeded (true when there were none). */
  get setupOk(): boolean {
    return this.setup.every((s) => s.ok);
  }

  /** The prepared unpatched tree every copy is made from (never run in after setup). */
  get pristineDir(): string {
    return this.#base;
  }

  async pristine(): Promise<WorkCopy> {
    const copy = await makeWorkCopy(this.#base, this.#scratch);
    this.#copies.push(copy);
    return copy;
  }

  async patched(diff: string): Promise<WorkCopy> {
    const copy = await this.pristine();
    if (diff.trim() !== "") await gitApply(copy.dir, diff);
    return copy;
  }

  /**
   * The whole test suite on the unpatched tree, run once and shared by every candidate. It may be started
   * early (while the model searches) and is stopped by `dispose()`.
   */
  baseline(signal?: AbortSignal): Promise<TestRun | null> {
    if (!this.#config.test.command) return Promise.resolve(null);
    return this.tests.full(signal);
  }

  /** Stops a baseline run still in progress and removes every copy. */
  async dispose(): Promise<void> {
    this.#abort.abort();
    await this.tests.idle();
    // Each copy may be its own (sized tmpfs) mount: released before the folder holding them is removed.
    await Promise.all(this.#copies.map((c) => c.dispose().catch(() => {})));
    await rm(this.#scratch, { recursive: true, force: true });
  }
}
