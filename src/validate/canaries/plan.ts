/**
 * Placing a run's check tests: the files written into the run's private copy of the tree and the command
 * that runs them with the repository's tests (see ./index.ts). Where they go, how they are named and what
 * they look like is the runner's (`runnerFor(name).canaries`); this is the same for every runner.
 */
import { createHash, randomBytes, randomInt } from "node:crypto";
import { lstatSync, lutimesSync } from "node:fs";
import { extname, join } from "node:path";
import type { RepoConfig } from "../../config/index.ts";
import { resolveScriptCommand, runnerOfCommand } from "../../config/index.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import { type RunnerName, runnerFor } from "../../runners/index.ts";
import type { CanaryRules, SourceInput, Spot } from "../../runners/parts/canaries.ts";
import { valueOptionsOf } from "../targets/runner-command.ts";
import type { CanaryPlan, CanaryTargeted, Focus, NoCanaries, Placement } from "./types.ts";

/** Sibling files of the check tests' file rewritten at most (a larger folder keeps its files' creation times). */
const MAX_BLENDED = 50;
/** A sibling larger than this keeps its creation time. */
const MAX_BLENDED_BYTES = 1024 * 1024;

/**
 * The check tests' file dated like the test file it imitates, and the other files of its folder with its
 * extension written afresh (same bytes, same mode, same times): none of them was created or changed
 * later than it, so the times of the files do not tell the check tests from the repository's tests.
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

const CONSONANTS = "bdfgklmnprstvz";
const VOWELS = "aeiou";

/** A fresh lowercase word of `syllables` syllables (`kavelomi`): random, pronounceable, unmarked. */
export function word(syllables = 4): string {
  let w = "";
  for (let i = 0; i < syllables; i++) w += CONSONANTS[randomInt(CONSONANTS.length)]! + VOWELS[randomInt(5)]!;
  return w;
}

const SCRIPT_NAME = "sh";

/** The run's runner, its command's words and a targeted run's targets; or why no check test goes in. */
function commandOf(
  config: Pick<RepoConfig, "test" | "validation">,
  command: string,
  targeted?: CanaryTargeted,
): { runner: RunnerName; words: string[]; targets: string[] | null } | NoCanaries {
  if (targeted) {
    const runner = config.validation.runner;
    const a = targeted.argv;
    if (!runner || a.length < 4 || a[0] !== "/bin/sh" || a[1] !== "-c" || a[3] !== SCRIPT_NAME)
      return { unverified: "the targeted command is not one whose tests can be added to" };
    return { runner, words: a[2]!.split(/\s+/), targets: a.slice(4) };
  }
  const runner = runnerOfCommand(command, config.test.framework);
  if (!runner)
    return {
      unverified: `the test command \`${command}\` is a script or uses shell syntax, so the runner checks cannot be added to it`,
    };
  return { runner, words: command.trim().split(/\s+/), targets: null };
}

/**
 * The words a package manager's script runs (`npm test -- <more>` → the script's words and `<more>`),
 * or why they cannot be known; nothing when the command runs no script.
 */
function scriptWordsOf(
  tree: TreeFs,
  words: readonly string[],
): { scriptWords?: readonly string[] | { reason: string } } {
  if (!/^(npm|pnpm|yarn)$/.test(words[0] ?? "")) return {};
  const sep = words.indexOf("--");
  const script = resolveScriptCommand(tree.root, (sep < 0 ? words : words.slice(0, sep)).join(" "));
  if (script === null) return {};
  if ("reason" in script) return { scriptWords: script };
  return { scriptWords: [...script.command.split(/\s+/), ...(sep < 0 ? [] : words.slice(sep + 1))] };
}

/** Where the runner's check tests go in this run; or why none can. */
function spotOf(
  rules: CanaryRules,
  tree: TreeFs,
  input: { runner: RunnerName; words: string[]; targets: string[] | null },
  focus?: Focus,
): Spot | NoCanaries {
  const stop = rules.deselecting(input.words);
  if (stop !== undefined)
    return {
      unverified: `the command's option \`${stop}\` could leave the check tests out or stop before them`,
    };
  try {
    return rules.spot({
      tree,
      words: input.words,
      targets: input.targets,
      valueOptions: valueOptionsOf(input.runner),
      ...scriptWordsOf(tree, input.words),
      ...(focus ? { focus } : {}),
    });
  } catch (err) {
    if (err instanceof TreeFsError) return { unverified: `the tree could not be read: ${err.message}` };
    throw err;
  }
}

/** Writes the check tests' file (and nothing else) into each of the spot's folders; or why it could not. */
function writePlacements(
  rules: CanaryRules,
  tree: TreeFs,
  spot: Spot,
  base: Omit<SourceInput, "dir" | "tree">,
  leftovers: (placements: Placement[]) => void,
): { placements: Placement[]; passName: string; failName: string } | NoCanaries {
  const placements: Placement[] = [];
  let passName = "";
  let failName = "";
  try {
    for (const dir of spot.dirs) {
      const input: SourceInput = { ...base, tree, dir };
      if (spot.sample) input.preferred = spot.sample;
      const src = rules.source(input);
      const refused = spot.refuses?.(src.name);
      if (refused) {
        leftovers(placements);
        return { unverified: refused };
      }
      passName = src.passName;
      failName = src.failName;
      const file = dir ? `${dir}/${src.name}` : src.name;
      const proof = dir ? `${dir}/${base.proofName}` : base.proofName;
      if (tree.readIfExists(file) !== null || tree.readIfExists(proof) !== null)
        throw new TreeFsError("invalid-path", file, "the check tests' file name is taken");
      placements.push({ dir, file, proof });
      tree.write(file, src.text, { mkdirs: false });
      blend(tree, dir, file, src.sample);
    }
  } catch (err) {
    leftovers(placements);
    if (err instanceof TreeFsError)
      return { unverified: `the check tests could not be written: ${err.message}` };
    throw err;
  }
  return { placements, passName, failName };
}

/** The command that runs the check tests' file with the run's tests; null when the targeted script takes none. */
function commandWith(
  command: string,
  added: string[],
  scope: string[],
  targeted: CanaryTargeted | undefined,
  targets: string[] | null,
): { out: string[]; processes: number } | null {
  if (!targeted) {
    // The command has no shell syntax (runnerOfCommand): the added words travel as arguments, never as
    // shell text (a scope comes from the repository).
    const more = [...scope, ...added].map((a) => (a.startsWith("-") ? `./${a}` : a));
    return { out: ["/bin/sh", "-c", `${command.trim()} "$@"`, SCRIPT_NAME, ...more], processes: 1 };
  }
  const argv = [...targeted.argv];
  if (!targeted.sequential) return { out: [...argv, ...added], processes: 1 };
  // One process per target: each runs the check tests too, and each must leave its proof.
  const script = argv[2]!;
  if (!script.includes('"$t" ||')) return null;
  argv[2] = script.replace('"$t" ||', `"$t" ${added.join(" ")} ||`);
  return { out: argv, processes: Math.max(1, targets?.length ?? 1) };
}

/**
 * Places check tests for one run in `tree` and returns the command that runs them with the repository's
 * tests, or why none can be placed. `targeted`: the run's targeted command (`sh -c '<words> "$@"'` with
 * the targets as arguments, a `{tests}` template alike); absent: the configured test command. `focus`:
 * what the patch changed (the check tests then call the changed code where a test beside them does).
 */
export function planCanaries(
  tree: TreeFs,
  config: Pick<RepoConfig, "test" | "validation">,
  targeted?: CanaryTargeted,
  focus?: Focus,
): CanaryPlan | NoCanaries {
  const command = config.test.command;
  if (!command) return { unverified: "there is no test command" };
  const cmd = commandOf(config, command, targeted);
  if ("unverified" in cmd) return cmd;
  const { runner, targets } = cmd;
  const rules = runnerFor(runner).canaries;
  if (targeted?.sequential && !(rules.placed && rules.perTargetProcesses))
    return { unverified: "a run of one process per target is not one check tests are added to" };
  if (!rules.placed) return { unverified: rules.why };
  const spot = spotOf(rules, tree, cmd, focus);
  if ("unverified" in spot) return spot;

  // Names a reader (or code in the runner's process) cannot tell from the repository's own: random words,
  // no mark of where they come from; the proof's value is a digest of a fresh nonce.
  const token = word(4);
  const proofName = `.${word(3)}-${hex(3)}.tmp`;
  const proofValue = digest(`${token} ${hex(16)}`);
  const base = { token, other: word(3), spare: word(3), proofName, proofValue, impossible: hex(8) };
  const remove = (placements: Placement[]): void => removeCanaryFiles(tree, runner, placements);
  const written = writePlacements(rules, tree, spot, focus ? { ...base, focus } : base, remove);
  if ("unverified" in written) return written;
  const { placements, passName, failName } = written;

  // A path that could read as an option stays a path (`-x/a.py` → `./-x/a.py`).
  const added = spot.args(placements[0]!.file).map((a) => (a.startsWith("-") ? `./${a}` : a));
  const run = commandWith(command, added, spot.scope ?? [], targeted, targets);
  if (!run) {
    remove(placements);
    return { unverified: "the targeted command is not one whose tests can be added to" };
  }
  const { out, processes } = run;
  return {
    runner,
    command: out,
    token: rules.idToken(token),
    passName,
    failName,
    proofValue,
    placements,
    processes,
  };
}

/** Removes the check tests' files, their proofs and what the runner left beside them (absent is fine). */
export function removeCanaryFiles(tree: TreeFs, runner: RunnerName, placements: readonly Placement[]): void {
  const rules = runnerFor(runner).canaries;
  const gone = (rel: string): void => {
    try {
      tree.remove(rel);
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
    }
  };
  for (const p of placements) for (const rel of [p.file, p.proof]) gone(rel);
  if (!rules.placed) return;
  for (const p of placements) for (const rel of rules.leftovers(tree, p.dir, p.file)) gone(rel);
}
