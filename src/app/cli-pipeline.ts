import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RENAMED_SETTINGS } from "../model/config.ts";
import { type FixResult, FixResultSchema, type Pipeline } from "./pipeline.ts";

const CLI = fileURLToPath(new URL("../../bin/auto-fix.js", import.meta.url));

/** Environment the pipeline may see: model settings and basics, never the app's key, secret or tokens. */
const PASS_ENV =
  /^(PATH|HOME|LANG|LC_[A-Z]+|TMPDIR|TZ|OPENAI_[A-Z_]+|AZURE_OPENAI_[A-Z_]+|AUTO_FIX_[A-Z_]+|NODE_EXTRA_CA_CERTS)$/;

export function pipelineEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && PASS_ENV.test(k)) out[k] = v;
  return out;
}

/** A progress line `auto-fix fix` prints on stderr when it is not a terminal: `auto-fix: <stage>[ (detail)]`. */
const STAGE_LINE = /^auto-fix: ([a-z][a-z-]*)(?: \((.*)\))?$/;

function parseResult(stdout: string): FixResult | null {
  const text = stdout.trim();
  const candidates = [text, text.slice(text.lastIndexOf("\n{") + 1)];
  for (const c of candidates) {
    try {
      const parsed = FixResultSchema.safeParse(JSON.parse(c));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON; try the next candidate
    }
  }
  return null;
}

/**
 * Adds what the pull request shows but the result JSON does not carry: the bug locations (resolved, with
 * the intended behaviour the model gave) from the run's `search/outcome.json` artifact.
 */
export async function withArtifacts(result: FixResult, outDir: string): Promise<FixResult> {
  if (result.locations !== undefined) return result;
  try {
    const outcome = JSON.parse(await readFile(join(outDir, "search", "outcome.json"), "utf8")) as {
      locations?: unknown;
      requested?: unknown;
    };
    const resolved = Array.isArray(outcome.locations) ? outcome.locations : [];
    const requested = Array.isArray(outcome.requested) ? outcome.requested : [];
    const locations = resolved.length > 0 ? resolved : requested;
    return locations.length > 0 ? { ...result, locations } : result;
  } catch {
    return result;
  }
}

/**
 * The pipeline as the command line runs it (`auto-fix fix ... --json`), in a child process of its own:
 * the same code path users run locally, killed with its process group on cancel.
 */
export function createCliPipeline(options: { env: NodeJS.ProcessEnv; cliPath?: string }): Pipeline {
  return (req) =>
    new Promise((resolve, reject) => {
      const args = [options.cliPath ?? CLI, "fix", "--repo", req.repoDir, "--issue", req.issueFile];
      args.push("--out", req.outDir, "--json");
      if (req.testCommand) args.push("--test-cmd", req.testCommand);
      if (req.guidance) args.push("--guidance", req.guidance);
      // The run's spend limit (the operator's per-run limit, the repository's, or what is left of the
      // day's, already the lowest) is the pipeline's model budget, under its one name.
      const env = pipelineEnv(options.env);
      for (const old of RENAMED_SETTINGS.AUTO_FIX_MAX_COST_USD_PER_RUN ?? []) delete env[old];
      env.AUTO_FIX_MAX_COST_USD_PER_RUN = String(req.maxCostUsd);
      const child = spawn(process.execPath, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      let pending = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
      });
      child.stderr.setEncoding("utf8").on("data", (c: string) => {
        stderr = (stderr + c).slice(-20_000);
        pending += c;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          const m = STAGE_LINE.exec(line.trim());
          if (m) req.onStage(m[1]!, m[2]);
        }
      });
      const kill = () => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      req.signal.addEventListener("abort", kill, { once: true });
      child.on("error", reject);
      child.on("close", (code) => {
        req.signal.removeEventListener("abort", kill);
        if (req.signal.aborted) return reject(new Error("cancelled"));
        const result = parseResult(stdout);
        if (result) return resolve(withArtifacts(result, req.outDir));
        const tail = stderr.trim().split("\n").slice(-5).join("\n");
        resolve(
          FixResultSchema.parse({
            status: "error",
            error: `the pipeline exited with code ${code} without a result${tail ? `: ${tail}` : ""}`,
          }),
        );
      });
    });
}
