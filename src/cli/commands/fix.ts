import { unknownLanguageNote } from "../../languages/index.ts";
import { existsSync } from "node:fs";
import { validationVerdict } from "../../contract/validation-verdict.ts";
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Issue, isEmptyIssue, parseIssueFile } from "../../agents/issue-text.ts";
import { loadRepoConfig, protectedPathsFromEnv } from "../../config/index.ts";
import { ceilingsFromEnv } from "../../core/ceilings.ts";
import { UserError } from "../../core/errors.ts";
import { type MaintainerInput, MaintainerInputSchema } from "../../core/maintainer-input.ts";
import { readInstructions } from "../../config/instructions.ts";
import { checkPricing, loadModelSettings } from "../../model/config.ts";
import { checkModelEndpoint } from "../../model/endpoint-check.ts";
import { OpenAIModel } from "../../model/openai-model.ts";
import { ArtifactRecorder } from "../../model/recorder.ts";
import { formatUsd, priceFor, UsageMeter } from "../../model/usage.ts";
import { defaultCacheDir } from "../../index/cache.ts";
import { startParseWorkers } from "../../index/index.ts";
import { openCode } from "../../pipeline/open-code.ts";
import { runFix } from "../../pipeline/run-fix.ts";
import { createReproduceReviewHooks } from "../../pipeline/stage-hooks.ts";
import {
  openRunSandbox,
  prefetchToolMounts,
  repositoryIdentity,
  setupCacheCapBytes,
} from "../../sandbox/index.ts";
import { STRATEGIES } from "../../strategies/index.ts";
import type { FixOptions } from "../../contract/pipeline.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliIO } from "../main.ts";
import { fixProgress } from "../progress.ts";

const MAX_ISSUE_FILE_BYTES = 5 * 1024 * 1024;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UserError(`${flag} must be a positive whole number (got '${value}')`);
  return n;
}

/** Reads an issue file (at most 5 MB): a UserError naming the file when it cannot be used. */
export async function readIssue(path: string): Promise<Issue> {
  let size: number;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new Error("not a file");
    size = st.size;
  } catch {
    throw new UserError(`--issue ${path} is not a readable file`);
  }
  if (size > MAX_ISSUE_FILE_BYTES) {
    throw new UserError(
      `--issue ${path} is ${size} bytes; an issue file may hold at most ${MAX_ISSUE_FILE_BYTES} bytes`,
    );
  }
  const issue = parseIssueFile(await readFile(path, "utf8"));
  // Nothing to search for: refused before anything is set up or paid for.
  if (isEmptyIssue(issue)) {
    throw new UserError(
      `--issue ${path} is empty: write the bug's title on the first line and what goes wrong below it`,
    );
  }
  return issue;
}

const MAX_GUIDANCE_FILE_BYTES = 2 * 1024 * 1024;

/**
 * The maintainer's input: the `--guidance-file` JSON (validated; a bad file is refused with the reason),
 * and the repository's instructions from the checkout when the file does not say what they are.
 */
async function readMaintainerInput(
  path: string | undefined,
  repo: string,
): Promise<{ input: MaintainerInput | undefined; notes: string[] }> {
  let input: MaintainerInput | undefined;
  if (path) {
    let text: string;
    try {
      const st = await stat(path);
      if (!st.isFile()) throw new Error("not a file");
      if (st.size > MAX_GUIDANCE_FILE_BYTES) {
        throw new UserError(
          `--guidance-file ${path} is ${st.size} bytes; it may hold at most ${MAX_GUIDANCE_FILE_BYTES} bytes`,
        );
      }
      text = await readFile(path, "utf8");
    } catch (error) {
      if (error instanceof UserError) throw error;
      throw new UserError(`--guidance-file ${path} is not a readable file`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new UserError(`--guidance-file ${path} is not JSON: ${(error as Error).message}`);
    }
    const parsed = MaintainerInputSchema.safeParse(json);
    if (!parsed.success) {
      const why = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`)
        .join("; ");
      throw new UserError(`--guidance-file ${path} does not have the expected shape: ${why}`);
    }
    input = parsed.data;
  }
  if (input?.instructions !== undefined) return { input, notes: [] };
  const found = readInstructions(repo);
  if (!found.instructions) return { input, notes: found.notes };
  return { input: { ...(input ?? {}), instructions: found.instructions }, notes: found.notes };
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, "-");

/**
 * `auto-fix fix --repo <dir> --issue <file> [--out <dir>] [--test-cmd <cmd>] [--strategy linear|tree] [--json]`:
 * runs the repair pipeline on a private copy of <dir> and writes patch.diff, report.md and the artifacts
 * under --out. Exit 0 when a patch was produced (fixed or patched), 1 when not, 2 on bad input.
 */
export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const { positionals } = args;
  const values = {
    repo: args.string("repo"),
    issue: args.string("issue"),
    out: args.string("out"),
    "test-cmd": args.string("test-cmd"),
    strategy: args.string("strategy"),
    rounds: args.string("rounds"),
    "patch-attempts": args.string("patch-attempts"),
    guidance: args.string("guidance"),
    "guidance-file": args.string("guidance-file"),
    "keep-workspace": args.flag("keep-workspace"),
    json: args.flag("json"),
  };
  if (positionals.length > 0) throw new UserError(`unexpected argument '${positionals[0]}'`);
  if (!values.repo) throw new UserError("--repo <dir> is required");
  if (!values.issue) throw new UserError("--issue <file> is required");
  const repo = resolve(io.cwd, values.repo);
  try {
    if (!(await stat(repo)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new UserError(`--repo ${values.repo} is not a directory`);
  }
  const issue = await readIssue(resolve(io.cwd, values.issue));
  if (values.strategy !== undefined && !STRATEGIES[values.strategy]) {
    throw new UserError(
      `unknown --strategy '${values.strategy}'; available: ${Object.keys(STRATEGIES).join(", ")}`,
    );
  }
  const roundsArg = positiveInt(values.rounds, "--rounds");
  const patchAttempts = positiveInt(values["patch-attempts"], "--patch-attempts");
  // The model configuration is checked before any work starts (missing settings: exit 2, naming them).
  const settings = loadModelSettings(io.env, io.cwd);
  for (const w of settings.warnings) io.stderr(`auto-fix fix: warning: ${w}\n`);
  // The repository's own configuration (.github/auto-fix.yml, read only): search rounds, budget,
  // protected paths, strategy and test command; the command line and the environment override it. It is
  // read once, here, and handed to every stage; a file that does not parse stops the command (exit 2)
  // with every problem named, before anything is paid for.
  // The operator's ceilings (AUTO_FIX_MAX_*): what the repository's configuration may ask for is clamped
  // to them, and so is every sandboxed run. A bad value stops the command here, naming the variable.
  const ceilings = ceilingsFromEnv(io.env);
  // The sandbox's toolchain probes run while the configuration is read and the model endpoint checked.
  void prefetchToolMounts();
  const repoConfig = loadRepoConfig(repo, {
    ...(values["test-cmd"] !== undefined ? { testCommand: values["test-cmd"] } : {}),
    protectedPaths: protectedPathsFromEnv(io.env),
    ceilings,
  });
  const notes: string[] = [...repoConfig.notes];
  // A repository in none of auto-fix's languages: what the run can and cannot do there, said first.
  if (repoConfig.language === "unknown") io.stderr(`auto-fix fix: note: ${unknownLanguageNote()}\n`);
  const roundLimit = roundsArg ?? repoConfig.budgets.searchRounds;
  const budget = { ...settings.budget };
  if (budget.usd === undefined && budget.tokens === undefined) budget.usd = repoConfig.budgets.costUsd;
  // A dollar budget is only a limit when the model's price is known: refuse before paying for anything.
  checkPricing(settings.model.model, budget, settings.prices);
  let strategyName = values.strategy ?? repoConfig.strategy.mode;
  if (!STRATEGIES[strategyName]) {
    notes.push(
      `The repository configuration asks for the ${strategyName} strategy, which this build lacks; the linear writer ran.`,
    );
    strategyName = "linear";
  }
  const makeStrategy = STRATEGIES[strategyName]!;

  const out = values.out ? resolve(io.cwd, values.out) : join(io.cwd, ".auto-fix", "runs", stamp());
  // Never mix two runs' artifacts (a second run would overwrite the first one's files).
  if (["report.md", "model-calls", "result.json"].some((f) => existsSync(join(out, f)))) {
    throw new UserError(`--out ${out} already holds the artifacts of a run; choose another folder`);
  }
  const recorder = new ArtifactRecorder(out);
  const meter = new UsageMeter({ budget, prices: settings.prices, maxUnusable: settings.maxUnusable });
  // The index's parse workers start now, and load the grammars the repository needs: they are ready by
  // the time the work tree is copied and indexed.
  startParseWorkers({
    root: repo,
    ...(io.env.AUTO_FIX_CACHE_DIR !== undefined ? { cacheDir: io.env.AUTO_FIX_CACHE_DIR } : {}),
  });
  // One cheap request before anything is paid for: a wrong URL, a refused key or a web page instead of
  // the API is reported now, and what came back is kept with the run's artifacts.
  const check = await checkModelEndpoint(settings.model);
  recorder.writeJson("endpoint-check.json", { ...check, body: undefined });
  if (check.body !== null) recorder.write("endpoint-check.body.txt", check.body);
  for (const w of check.warnings) io.stderr(`auto-fix fix: warning: ${w}\n`);
  if (!check.ok) {
    throw new UserError(
      `${check.message}\n(saved in ${join(out, "endpoint-check.json")})`,
      check.unreachable ? 1 : 2,
    );
  }
  const progress = fixProgress(io, meter);
  const model = new OpenAIModel(settings.model, {
    meter,
    recorder,
    log: (line) => progress.log(`auto-fix: ${line}`),
  });
  const abort = new AbortController();
  const options: FixOptions = { repo, issue, out, roundLimit, notes, signal: abort.signal };
  if (repoConfig.test.command) options.testCmd = repoConfig.test.command;
  if (patchAttempts !== undefined) options.patchAttempts = patchAttempts;
  if (values.guidance) options.guidance = values.guidance;
  const maintainer = await readMaintainerInput(
    values["guidance-file"] ? resolve(io.cwd, values["guidance-file"]) : undefined,
    repo,
  );
  notes.push(...maintainer.notes);
  if (maintainer.input) options.maintainer = maintainer.input;
  if (values["keep-workspace"]) options.keepWorkspace = true;
  recorder.writeJson("settings.json", {
    model: settings.model.model,
    baseURL: settings.model.baseURL,
    source: settings.source,
    budget,
    maxUnusableAnswers: settings.maxUnusable,
    price: priceFor(settings.prices, settings.model.model),
    strategy: strategyName,
    roundLimit,
    patchAttempts: patchAttempts ?? null,
    testCmd: options.testCmd ?? null,
    testCmdSource: repoConfig.test.source,
    protectedPaths: repoConfig.protectedPaths,
  });

  // Ctrl-C stops the run at the next point it can: the model call in flight and every sandboxed command
  // are stopped, the report is written, exit 130. A second Ctrl-C quits at once, after writing the report
  // of what the run has so far; temporary folders are removed on the way out (core/temp-dirs.ts).
  let writeNow: (() => void) | null = null;
  const onSecond = () => {
    progress.log("auto-fix: interrupted again; quitting now");
    try {
      writeNow?.();
    } catch (e) {
      io.stderr(`auto-fix fix: the report could not be written: ${(e as Error).message}\n`);
    }
    io.stderr(`report: ${join(out, "report.md")}\n`);
    process.exit(130);
  };
  // One listener for both (never none in between: Node would fall back to the default, which kills the
  // process without a report, while the first Ctrl-C's abort is still running).
  const onSigint = () => {
    if (abort.signal.aborted) return onSecond();
    progress.log("auto-fix: interrupted; stopping and writing the report (Ctrl-C again to quit at once)");
    abort.abort();
  };
  process.on("SIGINT", onSigint);
  // The one sandbox of the run, for the reproducer, the review, the tests and the tree search's checks.
  const sandbox = await openRunSandbox(repoConfig.sandbox, io.env, {
    ceilings,
    warn: (m) => progress.detail(m),
  });
  notes.push(...(sandbox.notes ?? []));
  // The setup step's result is kept per repository and lock files (AUTO_FIX_SETUP_CACHE=off: never).
  if (io.env.AUTO_FIX_SETUP_CACHE !== "off") {
    sandbox.setupCache = {
      dir: join(defaultCacheDir(io.env), "setup"),
      repo: await repositoryIdentity(repo),
      capBytes: setupCacheCapBytes(io.env, (m) => notes.push(m)),
    };
  }
  const hooks = createReproduceReviewHooks();
  let result: Awaited<ReturnType<typeof runFix>>;
  try {
    result = await runFix(options, {
      model,
      config: repoConfig,
      sandbox,
      modelName: settings.model.model,
      meter,
      recorder,
      openCode: (workdir) =>
        openCode(workdir, {
          env: io.env,
          protectedGlobs: repoConfig.protectedPaths,
          onProgress: (p) => progress.files(p),
        }),
      progress,
      strategy: makeStrategy(patchAttempts !== undefined ? { patchAttempts } : {}),
      hooks,
      onHardStop: (write) => {
        writeNow = write;
      },
    });
  } finally {
    await hooks.dispose();
    // After a Ctrl-C the listener stays: another one quits at once (exit 130), as promised.
    if (!abort.signal.aborted) process.removeListener("SIGINT", onSigint);
  }

  if (values.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const tokens = result.usage.prompt_tokens + result.usage.completion_tokens;
    io.stdout(
      [
        `status: ${result.status}`,
        `reason: ${result.reason}`,
        ...(result.validation ? [`tests: ${validationVerdict(result.validation).text}`] : []),
        `patch: ${result.patch ? join(out, "patch.diff") : "none"}`,
        `report: ${join(out, "report.md")}`,
        `usage: ${meter.calls()} model calls, ${tokens} tokens, ${formatUsd(result.usage.cost_usd)}`,
        "",
      ].join("\n"),
    );
  }
  if (abort.signal.aborted) return 130;
  return result.status === "fixed" || result.status === "patched" ? 0 : 1;
}
