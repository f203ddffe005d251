import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { forgetTempDir, trackTempDir } from "../core/temp-dirs.ts";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RepoConfig } from "../config/index.ts";
import { hostGitEnv } from "../core/git-env.ts";
import {
  freezeTree,
  makeWorkCopy,
  type SandboxPort,
  type SetupCacheSpec,
  type WorkCopy,
} from "../sandbox/index.ts";
import { PristineTests } from "./baseline.ts";
import type { SetupRun, TestRun } from "./run-tests.ts";
import { prepareSetup, type SetupCacheUse } from "./setup-step.ts";

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
      { cwd: dir, env: hostGitEnv({ GIT_CEILING_DIRECTORIES: dir }) },
      (err, _out, stderr) =>
        err ? reject(new DiffApplyError(`git apply failed: ${stderr.trim()}`)) : resolve(),
    );
    child.stdin?.end(diff);
  });
}

const digest = (parts: unknown[]): string => createHash("sha256").update(JSON.stringify(parts)).digest("hex");

/** `once` key of a reproducer's run on the program `diff` stands for (the script as it is written). */
export function reproducerRunKey(diff: string, command: string, file: string, script: string): string {
  return `reproducer:${digest([diff, command, file, script.endsWith("\n") ? script : `${script}\n`])}`;
}

/** `once` key of the test suite's run (compared with the unpatched run) on the program `diff` stands for. */
export function testRunKey(diff: string): string {
  return `tests:${digest([diff])}`;
}

/** Shared trees of the jobs running in this process, by work tree and settings (see `forJob`). */
const JOBS = new Map<string, Promise<TreeStates>>();

/**
 * The tree states a run needs, each a private copy of one prepared base: the base is the work tree after
 * the setup step (dependencies installed), copied fresh for every pristine run (reproducer before any
 * patch, baseline tests) and every patched run (reproducer and tests after a patch). No state leaks from
 * one run into another, and the pipeline's own work tree is never touched by a sandboxed command.
 */
export class TreeStates {
  readonly setup: SetupRun[];
  /** How the setup cache served the job (null: no cache, or no setup step). */
  readonly setupCache: SetupCacheUse | null;
  readonly #sandbox: SandboxPort;
  readonly #config: RepoConfig;
  readonly #scratch: string;
  readonly #base: string;
  readonly #copies: WorkCopy[] = [];
  readonly #abort = new AbortController();
  /** The unpatched tree's test results, computed once for the job and shared by every candidate. */
  readonly tests: PristineTests;
  /** Results of runs on a given program, shared by the stages and the patch strategy of the job. */
  readonly #results = new Map<string, Promise<unknown>>();
  /** Holders of a job's shared states (`forJob`); the last `dispose()` frees them. */
  #holders = 1;
  #forget: (() => void) | null = null;

  private constructor(
    sandbox: SandboxPort,
    config: RepoConfig,
    scratch: string,
    base: string,
    setup: SetupRun[],
    setupCache: SetupCacheUse | null,
  ) {
    this.#sandbox = sandbox;
    this.setupCache = setupCache;
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
    /** Where setup results are kept per repository and lock files (absent: setup always runs). */
    setupCache?: SetupCacheSpec | null;
  }): Promise<TreeStates> {
    const scratch = await mkdtemp(join(tmpdir(), "auto-fix-trees-"));
    trackTempDir(scratch);
    // Traversable, not listable: the sandbox's unprivileged uid reaches the copies without a staging bind.
    await chmod(scratch, 0o711);
    let base: WorkCopy | null = null;
    try {
      // Installed dependencies are shared read-only rather than copied when nothing of the job writes
      // them: no setup step, and a sandbox that binds them into each run (bubblewrap).
      const shareDependencies = opts.config.setup.length === 0 && opts.sandbox.kind === "bwrap";
      base = await makeWorkCopy(opts.source, scratch, { shareDependencies });
      const setup = await prepareSetup(opts.sandbox, base.dir, opts.config, opts.setupCache);
      // From now on the base is only read: every copy of it is an overlay that costs what changes in it.
      if (await freezeTree(base.dir)) await opts.sandbox.adoptTree?.(base.dir);
      const states = new TreeStates(opts.sandbox, opts.config, scratch, base.dir, setup.runs, setup.cache);
      states.#copies.push(base);
      return states;
    } catch (err) {
      await base?.dispose();
      await rm(scratch, { recursive: true, force: true });
      forgetTempDir(scratch);
      throw err;
    }
  }

  /**
   * The job's prepared trees: the first caller for a work tree prepares them (copy, setup), every later
   * caller with the same sandbox kind, setup and test settings gets the same ones while any holder has
   * not disposed them. So the validation stage and the tree search run setup once per job, share the
   * unpatched test run, and share the runs of a program both check (`once`). Each caller disposes.
   */
  static forJob(opts: {
    sandbox: SandboxPort;
    config: RepoConfig;
    source: string;
    setupCache?: SetupCacheSpec | null;
  }): Promise<TreeStates> {
    const c = opts.config;
    const key = JSON.stringify([
      resolve(opts.source),
      opts.sandbox.kind,
      c.setup,
      c.test,
      c.validation,
      c.timeouts,
      c.sandbox,
      c.reproducer,
    ]);
    const held = JOBS.get(key);
    if (held) {
      return held.then((states) => {
        states.#holders++;
        return states;
      });
    }
    const made = TreeStates.prepare(opts).then((states) => {
      states.#forget = () => {
        if (JOBS.get(key) === made) JOBS.delete(key);
      };
      return states;
    });
    JOBS.set(key, made);
    made.catch(() => JOBS.delete(key));
    return made;
  }

  /**
   * The result of a run on one program (a reproducer or the tests after a patch), computed once per job
   * under `key` (which names the program and what runs): the tree search's check of a candidate and the
   * review and validation of the same patch share it.
   */
  once<T>(key: string, run: () => Promise<T>): Promise<T> {
    let p = this.#results.get(key) as Promise<T> | undefined;
    if (!p) {
      p = run();
      this.#results.set(key, p);
      // A run that failed to run is not kept: the next asker tries again.
      p.catch(() => this.#results.delete(key));
    }
    return p;
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

  /** Stops a baseline run still in progress and removes every copy (once the job's last holder is done). */
  async dispose(): Promise<void> {
    if (--this.#holders > 0) return;
    this.#forget?.();
    this.#abort.abort();
    await this.tests.idle();
    // Each copy may be its own (sized tmpfs) mount: released before the folder holding them is removed,
    // the copies layered on the base before the base.
    const [base, ...copies] = this.#copies;
    await Promise.all(copies.map((c) => c.dispose().catch(() => {})));
    await base?.dispose().catch(() => {});
    await rm(this.#scratch, { recursive: true, force: true });
    forgetTempDir(this.#scratch);
  }
}
