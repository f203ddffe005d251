import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
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

/** A progress line the pipeline prints on stderr: `[auto-fix] stage <name>[: note]`. */
const STAGE_LINE = /^\[auto-fix\] stage ([a-z ]+?)(?::\s*(.*))?$/;

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
 * The pipeline as the command line runs it (`auto-fix fix ... --json`), in a child process of its own:
 * the same code path users run locally, killed with its process group on cancel.
 */
export function createCliPipeline(options: { env: NodeJS.ProcessEnv; cliPath?: string }): Pipeline {
  return (req) =>
    new Promise((resolve, reject) => {
      const args = [options.cliPath ?? CLI, "fix", "--repo", req.repoDir, "--issue", req.issueFile];
      args.push("--out", req.outDir, "--json");
      if (req.testCommand) args.push("--test-cmd", req.testCommand);
      const env = { ...pipelineEnv(options.env), AUTO_FIX_MAX_COST_USD: String(req.maxCostUsd) };
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
        if (result) return resolve(result);
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
