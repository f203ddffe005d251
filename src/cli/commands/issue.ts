import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { RepoConfigError } from "../../config/index.ts";
import { UserError } from "../../core/errors.ts";
import { createCliPipeline } from "../../issue-run/cli-pipeline.ts";
import { type DryRunResult, runDryRun } from "../../issue-run/dry-run.ts";
import { loadModelSettings } from "../../model/config.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliIO } from "../main.ts";
import { readIssue } from "./fix.ts";

const PERMISSIONS = ["admin", "maintain", "write", "triage", "read", "none"] as const;
type Level = (typeof PERMISSIONS)[number];

function describe(r: DryRunResult): string {
  const o = r.outcome;
  const lines: string[] = [];
  if ("pull" in o) {
    lines.push(
      `${o.status === "pull-opened" ? "Opened" : "Updated"} draft pull request #${o.pull} (commit ${o.commit.slice(0, 12)}).`,
    );
  } else if (o.status === "not-run") {
    lines.push(`The run did not start (${o.action}): ${o.reason}`);
  } else if ("reason" in o) {
    lines.push(`No pull request (${o.status}): ${o.reason}`);
  }
  if (r.pullBody) lines.push(`  pull request body: ${r.pullBody}`);
  if (r.pullDiff) lines.push(`  its change:        ${r.pullDiff}`);
  if (r.statusComment) lines.push(`  status comment:    ${r.statusComment}`);
  if (r.branch) {
    lines.push(`  branch:            ${r.branch} in ${r.remote}`);
    lines.push(`  to look at it:     git fetch ${r.remote} ${r.branch} && git diff HEAD FETCH_HEAD`);
  }
  lines.push(`  everything posted: ${r.githubDir} (events.jsonl lists each call)`);
  return `${lines.join("\n")}\n`;
}

/**
 * `auto-fix issue <repo-dir> --issue <file> --dry-run <dir>`: the app's issue run (admission, clone,
 * pipeline, push, pull request, status comment) against a local checkout, with the GitHub port's
 * dry-run implementation: nothing is sent to GitHub, everything it would post is written under <dir>.
 */
export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const [repoArg, ...extra] = args.positionals;
  if (extra.length > 0) throw new UserError(`unexpected argument '${extra[0]}'`);
  if (!repoArg) throw new UserError("<repo-dir> is required");
  const issueArg = args.string("issue");
  const outArg = args.string("dry-run");
  if (!issueArg) throw new UserError("--issue <file> is required");
  if (!outArg) throw new UserError("--dry-run <dir> is required (runs against GitHub go through the app)");
  const repoDir = resolve(io.cwd, repoArg);
  try {
    if (!(await stat(repoDir)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new UserError(`${repoArg} is not a directory`);
  }
  const numberArg = args.string("number") ?? "1";
  const issueNumber = Number(numberArg);
  if (!Number.isInteger(issueNumber) || issueNumber < 1 || issueNumber > 1_000_000_000) {
    throw new UserError(`--number must be a positive whole number (got '${numberArg}')`);
  }
  const permission = (args.string("permission") ?? "write") as Level;
  if (!PERMISSIONS.includes(permission)) {
    throw new UserError(`--permission must be one of ${PERMISSIONS.join(", ")} (got '${permission}')`);
  }
  const sender = args.string("sender") ?? "maintainer";
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(sender)) {
    throw new UserError(`--sender must be a GitHub login (letters, digits, hyphens; got '${sender}')`);
  }
  const issue = await readIssue(resolve(io.cwd, issueArg));
  // The model settings are checked now (missing ones: exit 2), not in the middle of the run.
  const model = loadModelSettings(io.env, io.cwd);
  for (const w of model.warnings) io.stderr(`auto-fix issue: warning: ${w}\n`);
  const testCmd = args.string("test-cmd");
  const env: NodeJS.ProcessEnv = {
    ...io.env,
    ...(testCmd !== undefined ? { AUTO_FIX_TEST_CMD: testCmd } : {}),
  };
  const abort = new AbortController();
  // Ctrl-C: the pipeline is asked to stop (it writes its report), exit 130; a second one quits at once.
  // One listener for both: never none in between (Node's default would kill the process at once).
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    io.stderr("auto-fix issue: interrupted; stopping the run (Ctrl-C again to quit at once)\n");
    abort.abort(new Error("interrupted"));
  };
  process.on("SIGINT", onSignal);
  try {
    const result = await runDryRun({
      repoDir,
      outDir: resolve(io.cwd, outArg),
      issue,
      issueNumber,
      sender,
      permission,
      guidance: args.string("guidance"),
      env,
      pipeline: createCliPipeline({
        env,
        // What the pipeline is doing, as it says it: its stages and the commands it runs, with their time.
        onProgress: (line) => io.stderr(`auto-fix issue: pipeline: ${line}\n`),
      }),
      signal: abort.signal,
      log: {
        info: (m) => io.stderr(`auto-fix issue: ${m}\n`),
        warn: (m) => io.stderr(`auto-fix issue: warning: ${m}\n`),
      },
    });
    io.stdout(args.flag("json") ? `${JSON.stringify(result, null, 2)}\n` : describe(result));
    if (abort.signal.aborted) return 130;
    // Bad settings exit 2, as `fix` does with the same file.
    if (result.configProblems && result.outcome.status === "not-run") {
      throw new RepoConfigError(result.configProblems);
    }
    const o = result.outcome.status;
    return o === "pull-opened" || o === "pull-updated" ? 0 : 1;
  } finally {
    if (!abort.signal.aborted) process.removeListener("SIGINT", onSignal);
  }
}
