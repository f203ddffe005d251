/**
 * Tamper evidence for a test run. The code under test runs inside the runner's process: a patch to a
 * source file can end the runner early (`os._exit(0)` at import), stub it (every test "passes") or
 * rewrite what it reports. Protecting the test files cannot stop that; canaries make it show.
 *
 * Before each run, two tests are written into the run's private copy of the tree (never into a patch),
 * beside one of the repository's test files and named like it (random words, no mark of where they come
 * from), and the command is made to run them with the repository's tests (an extra target, or a place the
 * runner discovers by its own rules), without changing which of the repository's tests run. Where the
 * runner allows it they import what that test file imports, call the repository's code the way it does
 * (a call whose arguments are literals, borrowed from it) and assert the way it does. Where they go, how
 * they are named and written, and how the runner's results name them is each runner's own
 * (`src/runners/<runner>/canaries.ts`, reached through `runnerFor(name).canaries`); a runner that gets
 * none says why, and its runs read "could not check":
 *
 * - one must fail: it asserts that the real call's result equals a random string, through the assertion
 *   a stub would have to neuter, so a stub that spares these tests spares the repository's too;
 * - one must pass: it makes the same call, and to show that its body ran it writes a value derived from a
 *   fresh per-run nonce into a fresh file beside it, which the host reads through tree-fs afterwards (no
 *   link followed, size capped).
 *
 * After the run the runner must have reported the failing one failed, the passing one passed, and the
 * proof file must hold the value (once per runner process the run starts). Then both canaries leave the
 * run's results (they are never counted, selected, compared or reported as the repository's tests) and
 * their files leave the tree. A run whose runner lost them, reported the failing one as passed or skipped,
 * or reported the passing one without its proof is `tampered`; a run where no canary could be placed
 * (a runner that places none, a command form it does not know, shell syntax, options that could deselect
 * them) or that a limit stopped is `unverified`, with why. `intact` only when every check held.
 *
 * What it does not prove: that a patch is honest. Code in the runner's process can read the canary files
 * as well as the runner can, so a patch written against this very scheme could still spare them or forge
 * the proof.
 * The canaries catch a runner that is ended, stubbed or made to report what did not run, including a stub
 * that spares tests by their names, by whether they call the repository's code or by what they import.
 */
export { checkCanaries, discardCanaries, mergeIntegrity } from "./check.ts";
export { type Focus, focusOf } from "./focus.ts";
export { planCanaries } from "./plan.ts";
export type {
  CanaryPlan,
  CanaryTargeted,
  IntegrityState,
  NoCanaries,
  RunIntegrity,
} from "./types.ts";
