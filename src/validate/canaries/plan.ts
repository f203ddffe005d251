/**
 * Placing a run's canaries: the files written into the run's private copy of the tree and the command
 * that runs them with the repository's tests (see ./index.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, lutimesSync } from "node:fs";
import { extname, join } from "node:path";
import type { RepoConfig, TestRunnerKind } from "../../config/index.ts";
import { runnerOfCommand } from "../../config/index.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type { Focus } from "./focus.ts";
import { goCanary } from "./go.ts";
import { jsCanary } from "./js.ts";
import { type CanarySource, pythonCanary, type SourceInput } from "./python.ts";
import { word } from "./sample.ts";
import { fnmatch } from "./args.ts";
import { goPackage, type Spot, spotFor } from "./spots.ts";
import type { CanaryPlan, CanaryTargeted, NoCanaries, Placement } from "./types.ts";

/** Sibling files of the canary rewritten at most (a larger folder keeps its files' creation times). */
const MAX_BLENDED = 50;
/** A sibling larger than this keeps its creation time. */
const MAX_BLENDED_BYTES = 1024 * 1024;

/**
 * The canary file dated like the test file it imitates, and the other files of its folder with its
 * extension written afresh (same bytes, same mode, same times): none of them was created or changed
 * later than the canary, so the times of the files do not tell the canaries from the repository's tests.
 */
function blend(tree: TreeFs, dir: string, file: string, sample?: string): void {
  const abs = (rel: string): string => join(tree.root, rel);
  const ext = extname(file);
  const siblings = tree
    .list(dir)
    .filter((e) => e.kind === "file" && extname(e.name) === ext)
    .map((e) => (dir ? `${dir}/${e.name}` : e.name))
    .filter((rel) => rel !== file);
  const ref = sample && tree.kind(sample) === "file" ? lstatSync(abs(sample)) : null;
  if (ref) lutimesSync(abs(file), ref.atime, ref.mtime);
  if (siblings.length > MAX_BLENDED) return;
  for (const rel of siblings) {
    try {
      if (tree.size(rel) > MAX_BLENDED_BYTES) continue;
      const st = lstatSync(abs(rel));
      tree.write(rel, tree.read(rel, { maxBytes: MAX_BLENDED_BYTES }), { mkdirs: false });
      if (tree.kind(rel) === "file") lutimesSync(abs(rel), st.atime, st.mtime);
    } catch (err) {
      // A file that cannot be read or written back keeps its times; the planted file is placed all the same.
      if (!(err instanceof TreeFsError)) throw err;
    }
  }
}

const hex = (n: number): string => randomBytes(n).toString("hex");
const digest = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The canary file for `runner` in `input.dir`. */
function canarySource(runner: TestRunnerKind, input: SourceInput, goPkg: string | null): CanarySource {
  switch (runner) {
    case "pytest":
    case "unittest":
      return pythonCanary(runner, input);
    case "go":
      return goCanary(input, goPkg!);
    case "node-test":
    case "mocha":
    case "jest":
    case "vitest":
      return jsCanary(runner, input);
    default:
      throw new Error(`no canary source for ${runner}`);
  }
}

const SCRIPT_NAME = "sh";

/**
 * Places canaries for one run in `tree` and returns the command that runs them with the repository's
 * tests, or why none can be placed. `targeted`: the run's targeted command (`sh -c '<words> "$@"'` with
 * the targets as arguments, a `{tests}` template alike); absent: the configured test command. `focus`:
 * what the patch changed (the canaries then call the changed code where a test beside them does).
 */
export function planCanaries(
  tree: TreeFs,
  config: Pick<RepoConfig, "test" | "validation">,
  targeted?: CanaryTargeted,
  focus?: Focus,
): CanaryPlan | NoCanaries {
  const command = config.test.command;
  if (!command) return { unverified: "there is no test command" };
  let runner: TestRunnerKind | null;
  let words: string[];
  let targets: string[] | null = null;
  if (targeted) {
    runner = config.validation.runner;
    const a = targeted.argv;
    if (!runner || a.length < 4 || a[0] !== "/bin/sh" || a[1] !== "-c" || a[3] !== SCRIPT_NAME)
      return { unverified: "the targeted command is not one whose tests can be added to" };
    words = a[2]!.split(/\s+/);
    targets = a.slice(4);
  } else {
    runner = runnerOfCommand(command, config.test.framework);
    if (!runner)
      return {
        unverified: `the test command \`${command}\` is a script or uses shell syntax, so the runner checks cannot be added to it`,
      };
    words = command.trim().split(/\s+/);
  }
  if (targeted?.sequential && runner !== "unittest")
    return { unverified: "a run of one process per target is not one check tests are added to" };
  if (runner === "maven" || runner === "gradle" || runner === "junit")
    return { unverified: `check tests are not placed for ${runner} runs` };
  let spot: Spot | NoCanaries;
  try {
    spot = spotFor(runner, tree, words, targets, focus);
  } catch (err) {
    if (err instanceof TreeFsError) return { unverified: `the tree could not be read: ${err.message}` };
    throw err;
  }
  if ("unverified" in spot) return spot;

  // Names a reader (or code in the runner's process) cannot tell from the repository's own: random words,
  // no mark of where they come from; the proof's value is a digest of a fresh nonce.
  const token = word(4);
  const other = word(3);
  const proofName = `.${word(3)}-${hex(3)}.tmp`;
  const proofValue = digest(`${token} ${hex(16)}`);
  const impossible = hex(8);

  const placements: Placement[] = [];
  let passName = "";
  let failName = "";
  try {
    for (const dir of spot.dirs) {
      const goPkg = runner === "go" ? goPackage(tree, dir) : undefined;
      if (runner === "go" && !goPkg)
        throw new TreeFsError("missing", dir, `no Go package clause found in ${dir || "the root"}`);
      const input: SourceInput = { tree, dir, token, other, proofName, proofValue, impossible };
      if (spot.sample) input.preferred = spot.sample;
      if (focus) input.focus = focus;
      const src = canarySource(runner, input, goPkg ?? null);
      if (runner === "unittest" && spot.scope && !fnmatch(spot.scope[0]!, src.name))
        return {
          unverified: `unittest's discovery pattern \`${spot.scope[0]}\` would not find the check tests' module`,
        };
      passName = src.passName;
      failName = src.failName;
      const file = dir ? `${dir}/${src.name}` : src.name;
      const proof = dir ? `${dir}/${proofName}` : proofName;
      if (tree.readIfExists(file) !== null || tree.readIfExists(proof) !== null)
        throw new TreeFsError("invalid-path", file, "the check tests' file name is taken");
      placements.push({ dir, file, proof });
      tree.write(file, src.text, { mkdirs: false });
      blend(tree, dir, file, src.sample);
    }
  } catch (err) {
    removeCanaryFiles(tree, placements);
    if (err instanceof TreeFsError)
      return { unverified: `the check tests could not be written: ${err.message}` };
    throw err;
  }

  const file = placements[0]!.file;
  // A path that could read as an option stays a path (`-x/a.py` → `./-x/a.py`).
  const added = spot.args(file).map((a) => (a.startsWith("-") ? `./${a}` : a));
  const scope = spot.scope && runner === "pytest" ? spot.scope : [];
  let out: string[] | string;
  let processes = 1;
  if (targeted) {
    const argv = [...targeted.argv];
    if (targeted.sequential) {
      // One process per module: each runs the canary module too, and each must leave its proof.
      const script = argv[2]!;
      if (!script.includes('"$t" ||')) {
        removeCanaryFiles(tree, placements);
        return { unverified: "the targeted command is not one whose tests can be added to" };
      }
      argv[2] = script.replace('"$t" ||', `"$t" ${added.join(" ")} ||`);
      processes = Math.max(1, targets?.length ?? 1);
    } else argv.push(...added);
    out = argv;
  } else {
    // The command has no shell syntax (runnerOfCommand): the added words travel as arguments, never as
    // shell text (testpaths come from the repository).
    const more = [...scope, ...added].map((a) => (a.startsWith("-") ? `./${a}` : a));
    out = ["/bin/sh", "-c", `${command.trim()} "$@"`, SCRIPT_NAME, ...more];
  }
  // Go's test names carry the word capitalised (`TestKavelo`).
  const idToken = runner === "go" ? token[0]!.toUpperCase() + token.slice(1) : token;
  return { runner, command: out, token: idToken, passName, failName, proofValue, placements, processes };
}

/** Removes the canary files and their proofs from the tree (absent is fine). */
export function removeCanaryFiles(tree: TreeFs, placements: readonly Placement[]): void {
  for (const p of placements) {
    for (const rel of [p.file, p.proof]) {
      try {
        tree.remove(rel);
      } catch (err) {
        if (!(err instanceof TreeFsError)) throw err;
      }
    }
  }
  // Python leaves a compiled copy of the canary module in __pycache__.
  for (const p of placements) {
    const cache = p.dir ? `${p.dir}/__pycache__` : "__pycache__";
    try {
      for (const e of tree.list(cache)) {
        if (e.name.includes(p.file.slice(p.file.lastIndexOf("/") + 1).replace(/\.py$/, "")))
          tree.remove(`${cache}/${e.name}`);
      }
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
    }
  }
}
