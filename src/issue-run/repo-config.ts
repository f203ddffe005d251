import {
  CONFIG_PATH,
  MAX_CONFIG_BYTES,
  parseRepoConfigFile,
  RepoConfigError,
  type RepoConfigFile,
} from "../config/index.ts";
import { inlineCode } from "../core/inert-markdown.ts";
import type { RepoGitHub } from "../github/port.ts";

/**
 * The repository's `.github/auto-fix.yml` as the app reads it, on the default branch or at `ref` (no
 * fallback to another repository), validated by the same schema (config/schema.ts) with the same
 * messages as the command line's reading of a clone. A file the command line would refuse is refused
 * here, with every problem named. Which settings come from which file: docs/configuration.md.
 */
export type AppRepoConfig = { ok: true; file: RepoConfigFile | null } | { ok: false; problems: string[] };

export async function readRepoConfig(
  github: Pick<RepoGitHub, "readFile">,
  ref?: string,
): Promise<AppRepoConfig> {
  const read = await github.readFile(CONFIG_PATH, MAX_CONFIG_BYTES, ref);
  if (read.kind === "missing") return { ok: true, file: null };
  if (read.kind === "unusable") return { ok: false, problems: [`the file cannot be used: ${read.reason}`] };
  try {
    return { ok: true, file: parseRepoConfigFile(read.text) };
  } catch (error) {
    if (error instanceof RepoConfigError) return { ok: false, problems: error.problems };
    throw error;
  }
}

/** Most problems quoted in a reply; the rest are counted. */
const MAX_PROBLEMS_SHOWN = 10;

/** The reply to a maintainer whose trigger met an invalid file: each problem inert, in inline code. */
export function invalidConfigReply(sender: string, problems: readonly string[], ref?: string): string {
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `- ${inlineCode(p, 300)}`);
  const more = problems.length - shown.length;
  const which = ref
    ? `${inlineCode(CONFIG_PATH)} at ${inlineCode(ref, 100)} (the ref this issue names, whose code the run would work on)`
    : `this repository's ${inlineCode(CONFIG_PATH)}`;
  return [
    `@${sender} auto-fix did not start: ${which} is not valid.`,
    "",
    ...shown,
    ...(more > 0 ? [`- … and ${more} more`] : []),
    "",
    "Fix the file (`npx auto-fix fix` reads it with the same rules and shows the same messages), then add the label again or comment `/retry`.",
  ].join("\n");
}
