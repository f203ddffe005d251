import type { RepoConfig } from "../config/index.ts";
import { stopsRun } from "../contract/failures.ts";
import type { ValidationOutcome } from "../contract/pipeline.ts";
import { patchKey } from "../contract/tried-patches.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import { compareRuns, countedClean, showsFix, type ValidationResult } from "./compare.ts";
import { type CandidateValidation, validateCandidate } from "./targeted.ts";
import { changedFilesOfDiff } from "./targets/diff-files.ts";
import { type TreeStates, testRunKey } from "./tree-states.ts";

/** What the validation stage runs on: the run's sandbox, configuration and prepared trees. */
export interface ValidateStageInput {
  sandbox: SandboxPort | null;
  config: RepoConfig;
  states: TreeStates | null;
  /** One test run per distinct patch (by `patchKey`) for the whole run (the review loop validates too). */
  cache: Map<string, Promise<ValidationResult>>;
  /** The reproducer's script: tests it names are selected too. */
  reproducerText?: string;
}

/**
 * Runs the repository's tests on a patch, once per distinct diff: the tests related to the change first
 * (and those the reproducer or `modelText` names), the rest as the configuration and its budget allow,
 * against the job's unpatched results of the same tests. A failure to run is an "error" result; errors
 * that stop the run go through.
 */
export function validateDiff(
  input: ValidateStageInput,
  diff: string,
  modelText?: string,
): Promise<ValidationResult> {
  // The same patch (normalised: `index` lines and trailing blanks aside) is validated once per job.
  const key = patchKey(diff);
  let p = input.cache.get(key);
  if (!p) {
    p = (async () => {
      const { states, sandbox, config } = input;
      if (!states || !sandbox || !config.test.command) return compareRuns(null, null);
      try {
        return (await candidateRun(input, diff, modelText))!.result;
      } catch (err) {
        if (stopsRun(err)) throw err;
        return {
          ...compareRuns(null, null),
          status: "error",
          command: config.test.command,
          summary: `validation could not run: ${(err as Error).message}`,
        };
      }
    })();
    input.cache.set(key, p);
  }
  return p;
}

/**
 * The candidate's validation with its runs (the one `validateDiff` reports), run once per job and
 * program: the tree search, the review loop, validation and the regression test's check share it.
 * Null when nothing can be validated (no tree, sandbox or test command).
 */
export function candidateRun(
  input: ValidateStageInput,
  diff: string,
  modelText?: string,
): Promise<CandidateValidation | null> {
  const { states, sandbox, config } = input;
  if (!states || !sandbox || !config.test.command) return Promise.resolve(null);
  const script = input.reproducerText;
  // The tree search may have run the tests on this very program already: its run is used.
  return states.once(testRunKey(diff), async () => {
    const copy = await states.patched(diff);
    try {
      return await validateCandidate({
        sandbox,
        config,
        pristine: { dir: states.pristineDir, tests: states.tests },
        workdir: copy.dir,
        changed: changedFilesOfDiff(diff),
        ...(script ? { reproducerText: script } : {}),
        ...(modelText ? { modelText } : {}),
      });
    } finally {
      await copy.dispose();
    }
  });
}

/** A validation result as the pipeline's candidates carry it. */
export function toValidationOutcome(v: ValidationResult): ValidationOutcome {
  return {
    passed: countedClean(v),
    showsFix: showsFix(v),
    regressions: v.regressions,
    summary: v.summary,
    data: {
      status: v.status,
      command: v.command,
      regressions: v.regressions,
      fixed: v.fixed,
      perTest: v.perTest,
      before: v.before ? { ...v.before, notes: v.before.notes ?? [] } : null,
      after: v.after ? { ...v.after, notes: v.after.notes ?? [] } : null,
      summary: v.summary,
      ...(v.tests ? { tests: v.tests } : {}),
      ...(v.stillFailing ? { stillFailing: v.stillFailing } : {}),
      ...(v.stillFailingRelated ? { stillFailingRelated: v.stillFailingRelated } : {}),
      ...(v.counted ? { counted: v.counted } : {}),
      ...(v.related !== undefined ? { related: v.related } : {}),
      ...(v.integrity ? { integrity: v.integrity } : {}),
    },
  };
}

/**
 * The validate stage: the repository's tests before and after one candidate's patch. Null when the
 * repository has no test command or no tree could be prepared (nothing to validate with).
 */
export async function validateStage(
  input: ValidateStageInput,
  candidate: { id: string; diff: string; modelText?: string },
  record: (name: string, value: unknown) => void,
): Promise<ValidationOutcome | null> {
  if (!input.config.test.command || !input.states) return null;
  const v = await validateDiff(input, candidate.diff, candidate.modelText);
  record(`${candidate.id}/validation.json`, v);
  return toValidationOutcome(v);
}
