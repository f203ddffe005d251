import { API_SPECS } from "../search/search-api.ts";
import type { CommandSpec } from "./args.ts";

const json = (what: string) => ({ name: "json", type: "boolean" as const, help: `Print ${what} as JSON.` });

/** Every command's argument table, in the order the top-level help lists them. */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  {
    name: "index",
    operands: "<dir>",
    summary: "Index a repository's code with tree-sitter (cached) and print counts.",
    options: [
      json('the counts {"files","bytes","classes","functions","methods","seconds","cache"}'),
      {
        name: "verbose",
        short: "v",
        type: "boolean",
        help: "Print every note (skipped files, cache problems).",
      },
    ],
    more: () =>
      "The cache lives in AUTO_FIX_CACHE_DIR (default: XDG_CACHE_HOME or ~/.cache/auto-fix).\n" +
      "On a terminal a progress line shows the files indexed so far.",
  },
  {
    name: "search",
    operands: "<dir> <api> [args...]",
    summary: "Run one search API as the model sees it.",
    helpBefore: 2,
    options: [
      json('{"ok","text","results":[{"file","class","method","start","end"}]} with every match'),
      { name: "include-tests", type: "boolean", help: "Search test files too (left out by default)." },
    ],
    more: () =>
      [
        "APIs:",
        ...API_SPECS.map(
          (s) => `  ${s.name} ${s.params.map((p) => `<${p}>`).join(" ")}\n      ${s.description}`,
        ),
        "",
        "Put -- before arguments that begin with '-': auto-fix search . search_code -- \"-x\"",
      ].join("\n"),
  },
  {
    name: "locate",
    operands: "<dir>",
    summary: "Resolve a bug location (as a model names it) to real code units.",
    options: [
      { name: "file", type: "string", value: "F", help: "File the bug is in (path relative to <dir>)." },
      { name: "class", type: "string", value: "C", help: "Class name (Class.method is split)." },
      { name: "method", type: "string", value: "M", help: "Method or function name." },
      {
        name: "intended",
        type: "string",
        value: "TEXT",
        help: "Intended behaviour, carried with the location.",
      },
      json('{"ok","locations","unresolved"}'),
    ],
    more: () => "Give at least one of --file, --class, --method.",
  },
  {
    name: "apply",
    operands: "<dir> <response-file>",
    summary: "Apply a model answer in <file>/<original>/<patched> form; writes only with --write.",
    options: [
      json('{"status","diff","edits":[{"file","status","message"}]}'),
      { name: "write", type: "boolean", help: "Write the patched files (only when every edit applies)." },
      {
        name: "protect",
        type: "string",
        value: "GLOB",
        multiple: true,
        help: "Refuse edits to files matching GLOB (besides .github/ and CI files).",
      },
    ],
    more: () => "Exit 0 only when the status is APPLICABLE_PATCH.",
  },
  {
    name: "sandbox",
    operands: "<dir>",
    summary:
      "Run a command in the sandbox the pipeline uses, on a private copy of <dir>, and print what it did.",
    afterDash: "command",
    options: [
      { name: "network", type: "boolean", help: "Give the command a network (off by default)." },
      {
        name: "timeout",
        type: "string",
        value: "S",
        help: "Time limit in seconds (default: the test timeout).",
      },
      { name: "memory", type: "string", value: "MB", help: "Memory limit in megabytes." },
      { name: "setup", type: "boolean", help: "Run the repository's setup steps first (with a network)." },
      json("the exit code, output, limit hit and sandbox capabilities"),
      { name: "no-sandbox", type: "boolean", help: "Run without a sandbox (unsafe: for comparison only)." },
    ],
    more: () =>
      "Exit status: the command's own, 124 when a limit was hit.\n" +
      "Everything after -- is the command, options included: auto-fix sandbox . -- grep -h x f",
  },
  {
    name: "fix",
    operands: "",
    summary: "Run the whole repair pipeline on a local checkout (never modified) and write a report.",
    options: [
      { name: "repo", type: "string", value: "DIR", help: "The checkout to repair (required)." },
      {
        name: "issue",
        type: "string",
        value: "FILE",
        help: "The issue: text/Markdown or JSON {title, body} (required).",
      },
      {
        name: "out",
        type: "string",
        value: "DIR",
        help: "Where the report and artifacts go (default ./.auto-fix/runs/<time>).",
      },
      { name: "test-cmd", type: "string", value: "CMD", help: "The repository's test command." },
      {
        name: "strategy",
        type: "string",
        value: "linear|tree",
        help: "Patch strategy (default: the repo config, else linear).",
      },
      { name: "rounds", type: "string", value: "N", help: "Search rounds (default 15)." },
      { name: "patch-attempts", type: "string", value: "N", help: "Patch attempts (default 3)." },
      { name: "guidance", type: "string", value: "TEXT", help: "Extra advice for the model." },
      { name: "keep-workspace", type: "boolean", help: "Keep the private copy the run worked in." },
      json('the result {"status","patch","reproduced","review","validation","usage","out",...}'),
    ],
    more: () =>
      [
        "Model settings (environment, or a config file; docs/fix.md):",
        "  OPENAI_BASE_URL   an OpenAI-compatible endpoint, http(s) (default https://api.openai.com/v1)",
        "  OPENAI_API_KEY    the key (local servers need none)",
        "  AUTO_FIX_MODEL    the model or deployment name (required)",
        "  AUTO_FIX_MAX_COST_USD_PER_RUN, AUTO_FIX_MAX_TOKENS_PER_RUN   the run's budget",
        "  AUTO_FIX_PRICE_INPUT_PER_MTOK, AUTO_FIX_PRICE_OUTPUT_PER_MTOK  the model's price (USD per 1M tokens)",
        "  AUTO_FIX_MAX_UNUSABLE_ANSWERS   unusable answers in a row before the run stops (default 3)",
        "",
        "Exit status: 0 fixed or patched, 1 otherwise, 2 bad input or settings, 130 interrupted.",
      ].join("\n"),
  },
  {
    name: "issue",
    operands: "<repo-dir>",
    summary:
      "Run the GitHub App's whole issue run on a local checkout with no GitHub: what it would post is written to a folder.",
    options: [
      {
        name: "issue",
        type: "string",
        value: "FILE",
        help: "The issue: text/Markdown or JSON {title, body} (required; untrusted, as on GitHub).",
      },
      {
        name: "dry-run",
        type: "string",
        value: "DIR",
        help: "Where the pull request, comments, reactions and the pushed branch go (required).",
      },
      { name: "number", type: "string", value: "N", help: "The issue's number (default 1)." },
      {
        name: "sender",
        type: "string",
        value: "LOGIN",
        help: "Who asks for the run (default: maintainer).",
      },
      {
        name: "permission",
        type: "string",
        value: "LEVEL",
        help: "The access assumed for the sender: admin, maintain, write (default), triage, read, none.",
      },
      { name: "guidance", type: "string", value: "TEXT", help: "Run as `/retry <TEXT>` would." },
      { name: "test-cmd", type: "string", value: "CMD", help: "The operator's default test command." },
      json('{"outcome","githubDir","remote","branch","pullBody","pullDiff","statusComment"}'),
    ],
    more: () =>
      [
        "The checkout is only read: its committed state is copied into DIR/remote.git, which the run",
        "clones and pushes to over git's HTTP protocol on 127.0.0.1, as it does with GitHub.",
        "DIR/github/ holds what would have been posted: pull-<n>.md (the pull request body), pull-<n>.diff,",
        "issue-<n>/comment-<id>.md (the status comment and replies), events.jsonl (every call).",
        "DIR/work/ holds each run's artifacts (report.md, result.json, the model calls).",
        "A second run into the same DIR is a retry: the status comment and pull request are updated.",
        "Model settings as for `auto-fix fix`; operator settings (AUTO_FIX_*) as for the app.",
        "",
        "Exit status: 0 a pull request was opened or updated, 1 otherwise, 2 bad input or settings.",
      ].join("\n"),
  },
  {
    name: "worker",
    operands: "",
    summary: "Take repair jobs from the shared queue (REDIS_URL, else the embedded store) and run them.",
    options: [
      {
        name: "concurrency",
        type: "string",
        value: "N",
        help: "Jobs run at once (default AUTO_FIX_CONCURRENCY).",
      },
      {
        name: "grace-seconds",
        type: "string",
        value: "S",
        help: "Time running jobs get after SIGTERM (default 30).",
      },
      { name: "port", type: "string", value: "P", help: "Serve /health and /metrics on this port." },
      { name: "host", type: "string", value: "H", help: "Address for /health and /metrics." },
    ],
  },
];

export function specFor(name: string): CommandSpec | undefined {
  return COMMAND_SPECS.find((s) => s.name === name);
}
