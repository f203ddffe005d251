import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadRepoConfig, type RepoConfig } from "../../../src/config/index.ts";
import type { SandboxPort } from "../../../src/sandbox/index.ts";
import { TreeStates, type CandidateValidation, validateCandidate } from "../../../src/validate/index.ts";
import { tempDir } from "../../support/temp.ts";

/** A repository written from a map of files (a folder under the temp dir). */
export function writeRepo(files: Record<string, string>): string {
  const dir = tempDir("af-targeted-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** The prepared trees of a job on `repo` (setup run once), with its configuration. */
export async function prepareJob(
  sandbox: SandboxPort,
  repo: string,
  tweak: (c: RepoConfig) => RepoConfig = (c) => c,
): Promise<{ states: TreeStates; config: RepoConfig }> {
  const config = tweak(loadRepoConfig(repo));
  const states = await TreeStates.prepare({ sandbox, config, source: repo });
  return { states, config };
}

/** Validates a candidate that replaces `from` by `to` in each changed file. */
export async function validateEdit(
  sandbox: SandboxPort,
  job: { states: TreeStates; config: RepoConfig },
  edits: Record<string, [string, string]>,
  texts: { reproducerText?: string; modelText?: string; slowdownGraceMs?: number; parallel?: boolean } = {},
): Promise<CandidateValidation> {
  const copy = await job.states.pristine();
  try {
    for (const [rel, [from, to]] of Object.entries(edits)) {
      const text = readFileSync(join(copy.dir, rel), "utf8");
      assert.ok(text.includes(from), `${rel} lacks ${from}`);
      writeFileSync(join(copy.dir, rel), text.replace(from, to));
    }
    return await validateCandidate({
      sandbox,
      config: job.config,
      pristine: { dir: job.states.pristineDir, tests: job.states.tests },
      workdir: copy.dir,
      changed: Object.keys(edits),
      ...texts,
    });
  } finally {
    await copy.dispose();
  }
}

/** The selected targets with their reasons, as the report lists them. */
export const selected = (v: CandidateValidation): Record<string, string[]> =>
  Object.fromEntries((v.result.tests?.selected ?? []).map((s) => [s.target, s.reasons]));

/** The selected targets in rank order, each with whether it ran. */
export const runs = (v: CandidateValidation): Record<string, string> =>
  Object.fromEntries((v.result.tests?.selected ?? []).map((s) => [s.target, s.run ?? "ran"]));

/** The test ids the candidate's last run ran. */
export const ranIds = (v: CandidateValidation): string[] => [...(v.run?.tests?.keys() ?? [])].sort();
