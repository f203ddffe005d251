/**
 * A worker's memory through one whole issue run: `auto-fix issue <repo> --dry-run` (admission, clone over
 * git's smart HTTP on 127.0.0.1, the pipeline child, the sandbox, commit, push, pull request body and
 * status comment on disk) on a small Python project, and on the same project with large incompressible
 * files beside it (`--large 3 --mb 32`: 3 × 32 MB, as `bench:clone` makes them). The scripted model on
 * 127.0.0.1 fixes the bug at once, so both runs go through every stage to a pull request.
 *
 *   npm run bench:memory [-- --large 3 --mb 32 --rounds 3]
 *
 * Three rounds by default (the peak of resident memory varies with when the collector runs). Each run
 * is made in a fresh process of its own (so that one run's heap does not count in the other's);
 * printed for each: the worker's resident memory before the run, its peak during it (sampled every 5 ms),
 * the peak of its child processes (VmHWM from /proc: the pipeline child, git, the sandbox), the run's
 * outcome and time; then the worker's peak over the small run's. The target: under +50 MB for 96 MB of
 * large files (no step of a run holds the repository's files in the worker's memory).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { main } from "../src/cli/main.ts";
import { descendants } from "../src/core/kill-tree.ts";
import { fence, promptKind, verdict } from "../test/review/helpers.ts";
import { agentScript, patchAnswer, searchSays } from "../test/support/agent-script.ts";
import { type ScriptHandler, startScriptedModel } from "../test/support/scripted-model.ts";
import { tempDir } from "../test/support/temp.ts";

const { values } = parseArgs({
  options: {
    large: { type: "string", default: "3" },
    mb: { type: "string", default: "32" },
    rounds: { type: "string", default: "3" },
    one: { type: "string" },
  },
});

const MB = 1024 * 1024;
const BUGGY = "    return sum(values) / (len(values) - 1)";
const FIXED = "    return sum(values) / len(values)";
const REPRO =
  "from stats.summary import mean\nresult = mean([2, 4])\nassert result == 3, f'expected 3, got {result}'\n";

interface Figures {
  label: string;
  baseline: number;
  peak: number;
  childKb: number;
  childName: string;
  /** The pipeline child's peak (VmHWM), kB. */
  pipelineKb: number;
  /** At the worker's peak: its JavaScript heap, and the memory outside it (buffers). */
  parts: string;
  outcome: string;
  seconds: number;
}

const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, {
    cwd,
    stdio: "pipe",
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "Dev",
      GIT_AUTHOR_EMAIL: "dev@example.com",
      GIT_COMMITTER_NAME: "Dev",
      GIT_COMMITTER_EMAIL: "dev@example.com",
    },
  });

/** The project: a mean that divides by one too few, its test, and `large` random files of `mb` MB. */
function makeRepo(work: string, large: number, mb: number): string {
  const repo = join(work, "stats");
  mkdirSync(join(repo, "stats"), { recursive: true });
  mkdirSync(join(repo, "tests"), { recursive: true });
  writeFileSync(join(repo, "stats/__init__.py"), "");
  writeFileSync(
    join(repo, "stats/summary.py"),
    `def mean(values):\n    """Arithmetic mean of a non-empty list."""\n${BUGGY}\n\n\ndef total(values):\n    return sum(values)\n`,
  );
  writeFileSync(
    join(repo, "tests/test_summary.py"),
    "from stats.summary import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
  );
  writeFileSync(join(repo, "README.md"), "# stats\n");
  if (large > 0) mkdirSync(join(repo, "data"));
  // Written by a child process: the worker's heap holds none of it before the run.
  for (let i = 0; i < large; i++)
    execFileSync("sh", [
      "-c",
      `head -c ${mb * MB} /dev/urandom > "$1"`,
      "sh",
      join(repo, `data/blob-${i}.bin`),
    ]);
  git(repo, ["init", "-q", "-b", "main"]);
  git(repo, ["add", "-A"]);
  git(repo, ["commit", "-q", "-m", "Initial commit"]);
  return repo;
}

function script(): ScriptHandler {
  const agents = agentScript({
    search: [
      searchSays("Found it.", {
        bug_locations: [{ file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len." }],
      }),
    ],
    patch: [patchAnswer("stats/summary.py", BUGGY, FIXED)],
  });
  return (req, i) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write" || kind === "repro-feedback" || kind === "rewrite-test")
      return fence("python", REPRO);
    if (kind === "review" || kind === "review-retry") return verdict("yes", "yes");
    return agents(req, i);
  };
}

function vmHwmKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** One run in this process: the repository made, the run measured. */
async function one(large: number, mb: number): Promise<Figures> {
  const work = tempDir("auto-fix-bench-memory-");
  const repo = makeRepo(work, large, mb);
  const issueFile = join(work, "issue.md");
  writeFileSync(issueFile, "# mean() is off\n\nmean([2, 4]) returns 6 instead of 3.\n");
  const model = await startScriptedModel(script());
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let child = { kb: 0, name: "" };
  let pipelineKb = 0;
  let atPeak = process.memoryUsage();
  const rssTimer = setInterval(() => {
    const m = process.memoryUsage();
    if (m.rss > peak) {
      peak = m.rss;
      atPeak = m;
    }
  }, 5);
  const childTimer = setInterval(() => {
    for (const pid of descendants(process.pid)) {
      if (pid === process.pid) continue;
      const kb = vmHwmKb(pid);
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        // The pipeline child: `auto-fix fix`, run by the same node.
        if (argv[0] === process.execPath && argv.includes("fix")) pipelineKb = Math.max(pipelineKb, kb);
        if (kb > child.kb) child = { kb, name: argv.slice(0, 3).join(" ") };
      } catch {
        // gone
      }
    }
  }, 50);
  let stdout = "";
  const started = performance.now();
  try {
    const code = await main(["issue", repo, "--issue", issueFile, "--dry-run", join(work, "dry"), "--json"], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: () => {},
      env: {
        PATH: process.env.PATH,
        HOME: work,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: "test-key",
        AUTO_FIX_MODEL: "scripted-model",
        AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
        AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0",
        AUTO_FIX_CACHE_DIR: join(work, "cache"),
      },
      cwd: work,
      isTTY: false,
    });
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, process.memoryUsage().rss);
    let outcome = `exit ${code}`;
    try {
      outcome += `, ${(JSON.parse(stdout) as { outcome: { status: string } }).outcome.status}`;
    } catch {
      outcome += " (no result printed)";
    }
    return {
      label: large ? `${large} × ${mb} MB of large files` : "small repository",
      baseline,
      peak,
      childKb: child.kb,
      childName: child.name,
      pipelineKb,
      parts: `heap ${(atPeak.heapUsed / MB).toFixed(1)} MB, external ${(atPeak.external / MB).toFixed(1)} MB, array buffers ${(atPeak.arrayBuffers / MB).toFixed(1)} MB`,
      outcome,
      seconds,
    };
  } finally {
    clearInterval(rssTimer);
    clearInterval(childTimer);
    await model.close();
  }
}

/** One run in a fresh process of its own. */
function inChild(large: number, mb: number): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [...process.execArgv, import.meta.filename, "--one", String(large), "--mb", String(mb)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    p.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    p.on("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line) as Figures);
      } catch {
        reject(new Error(`the measured run exited ${code} without figures:\n${out}`));
      }
    });
  });
}

const show = (f: Figures) =>
  [
    `\n${f.label}: ${f.outcome}, ${f.seconds.toFixed(1)} s`,
    `  worker RSS before the run: ${(f.baseline / MB).toFixed(1)} MB`,
    `  worker RSS peak during it: ${(f.peak / MB).toFixed(1)} MB (+${((f.peak - f.baseline) / MB).toFixed(1)} MB; ${f.parts})`,
    `  pipeline child's peak (VmHWM): ${(f.pipelineKb / 1024).toFixed(1)} MB`,
    `  largest child peak (VmHWM): ${(f.childKb / 1024).toFixed(1)} MB (${f.childName})`,
  ].join("\n");

if (values.one !== undefined) {
  const figures = await one(Number(values.one), Number(values.mb));
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
} else {
  const large = Math.max(1, Number(values.large) || 3);
  const mb = Math.max(1, Number(values.mb) || 32);
  const overs: number[] = [];
  for (let r = 0; r < Math.max(1, Number(values.rounds) || 3); r++) {
    const small = await inChild(0, mb);
    console.log(show(small));
    const big = await inChild(large, mb);
    console.log(show(big));
    const over = (big.peak - small.peak) / MB;
    overs.push(over);
    console.log(
      `\nworker peak with ${large * mb} MB of large files over the small run's: ${over >= 0 ? "+" : ""}${over.toFixed(1)} MB (target: under +50 MB)`,
    );
  }
  const sorted = [...overs].sort((a, b) => a - b);
  console.log(
    `\nover ${overs.length} rounds: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} MB, largest ${sorted.at(-1)!.toFixed(1)} MB`,
  );
}
