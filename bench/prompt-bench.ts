/**
 * Prompt size of the patch writer on a multi-location fixture: real multi-file projects (modules of the
 * Python standard library and the TypeScript sources of the `openai` client in node_modules), and per
 * run the bug locations a model names for one fix: a new method in a long class, a module-level edit in
 * a long file, a class attribute, ordinary method fixes. Each run's patch prompt (system and user
 * message, as `patchMessages` builds it) is counted with the estimate the model client uses when the
 * endpoint reports no usage (about four characters a token), with locations sized the way they were
 * before (`whole`: the whole class or file) and now (`change`: the part that holds the change).
 * Printed: tokens per run, then the median and the largest over the runs.
 *
 *   npm run bench:prompt [-- --json]
 *
 * Without /usr/lib/python3.11 the Python runs are left out (and said so).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { patchMessages } from "../src/agents/patch-agent.ts";
import type { LocationRequest } from "../src/agents/proxy-agent.ts";
import { buildIndex } from "../src/index/index.ts";
import { formatLocationsForModel } from "../src/locate/format.ts";
import { type LocationSizing, resolveBugLocations } from "../src/locate/locate.ts";
import { approxTokens } from "../src/model/openai-model.ts";
import { PATCH_FORMAT_HELP } from "../src/patch/index.ts";

const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });

const STDLIB = "/usr/lib/python3.11";
const PY_FILES = [
  "argparse.py",
  "tarfile.py",
  "configparser.py",
  "subprocess.py",
  "typing.py",
  "http/client.py",
  "logging/__init__.py",
  "inspect.py",
];
const OPENAI_SRC = new URL("../node_modules/openai/src/", import.meta.url).pathname;

interface Run {
  name: string;
  /** What the run needs: `python` (the standard library) or `ts` (the openai sources). */
  needs: "python" | "ts";
  issue: string;
  locations: LocationRequest[];
}

const RUNS: Run[] = [
  {
    name: "argparse: new method + method fix",
    needs: "python",
    issue:
      "parse_known_intermixed_args silently accepts unknown options; add a strict variant and fix the usage wrap.",
    locations: [
      {
        file: "lib/argparse.py",
        class: "ArgumentParser",
        method: "parse_known_intermixed_args_strict",
        intended_behavior: "like parse_known_intermixed_args, but error out on unknown options",
      },
      {
        file: "lib/argparse.py",
        class: "HelpFormatter",
        method: "_format_usage",
        intended_behavior: "wrap the usage at the terminal width",
      },
    ],
  },
  {
    name: "tarfile: module-level + new method + method fix",
    needs: "python",
    issue: "Archives written by default lose long names on old readers; TarFile needs a safe extract-all.",
    locations: [
      { file: "lib/tarfile.py", intended_behavior: "`DEFAULT_FORMAT` should be GNU_FORMAT" },
      {
        file: "lib/tarfile.py",
        class: "TarFile",
        method: "extractall_safe",
        intended_behavior: "extract every member with the 'data' filter",
      },
      { class: "TarInfo", method: "frombuf", intended_behavior: "reject a negative size" },
    ],
  },
  {
    name: "configparser: class attribute + method fix",
    needs: "python",
    issue: "getboolean rejects ' yes ' and does not know 'enabled'.",
    locations: [
      {
        file: "lib/configparser.py",
        class: "RawConfigParser",
        intended_behavior: "`BOOLEAN_STATES` also maps 'enabled' and 'disabled'",
      },
      { class: "RawConfigParser", method: "_convert_to_boolean", intended_behavior: "strip the value first" },
    ],
  },
  {
    name: "subprocess: module-level + new method",
    needs: "python",
    issue: "posix_spawn is used where it breaks close_fds; Popen should tell whether it is still running.",
    locations: [
      {
        file: "lib/subprocess.py",
        intended_behavior: "`_USE_POSIX_SPAWN` must be False when close_fds is set",
      },
      { class: "Popen", method: "is_running", intended_behavior: "True while the child has not exited" },
    ],
  },
  {
    name: "typing: module-level line + method fix",
    needs: "python",
    issue: "Subscripting a generic alias with a bare ellipsis gives a confusing error.",
    locations: [
      {
        file: "lib/typing.py:1361",
        class: "_GenericAlias",
        method: "__getitem__",
        intended_behavior: "reject `...`",
      },
      { file: "lib/typing.py", intended_behavior: "`_cleanups` must also clear the new cache" },
    ],
  },
  {
    name: "http.client: module constant + new method + method fix",
    needs: "python",
    issue: "Servers that send more than 100 headers are refused; HTTPConnection cannot clear a tunnel.",
    locations: [
      { file: "lib/http/client.py", intended_behavior: "raise `_MAXHEADERS` to 200" },
      {
        file: "lib/http/client.py",
        class: "HTTPConnection",
        method: "clear_tunnel",
        intended_behavior: "undo set_tunnel",
      },
      { class: "HTTPResponse", method: "read", intended_behavior: "honour amt=0" },
    ],
  },
  {
    name: "logging: method fix + module flag",
    needs: "python",
    issue: "findCaller reports the wrong frame with stacklevel > 1.",
    locations: [
      { class: "Logger", method: "findCaller", intended_behavior: "count stacklevel from the caller" },
      { file: "lib/logging/__init__.py", intended_behavior: "`raiseExceptions` documented default" },
    ],
  },
  {
    name: "inspect: new method + function fix",
    needs: "python",
    issue: "Signature cannot drop parameters; _signature_from_callable mishandles partials.",
    locations: [
      {
        file: "lib/inspect.py",
        class: "Signature",
        method: "without_parameters",
        intended_behavior: "a copy without the named parameters",
      },
      {
        file: "lib/inspect.py",
        method: "_signature_from_callable",
        intended_behavior: "unwrap partials first",
      },
    ],
  },
  {
    name: "openai (TS): new method + method fix + static attribute",
    needs: "ts",
    issue: "Retries ignore Retry-After on 503; the default timeout is too long.",
    locations: [
      {
        file: "openai/client.ts",
        class: "OpenAI",
        method: "shouldRetryStatus",
        intended_behavior: "true for 408, 409, 429 and 5xx, used by shouldRetry",
      },
      { class: "OpenAI", method: "shouldRetry", intended_behavior: "honour Retry-After on 503" },
      {
        file: "openai/client.ts",
        class: "OpenAI",
        intended_behavior: "`DEFAULT_TIMEOUT` should be 2 minutes",
      },
    ],
  },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

const dir = mkdtempSync(join(tmpdir(), "auto-fix-prompt-bench-"));
try {
  const repo = join(dir, "repo");
  const have = {
    python: existsSync(join(STDLIB, "argparse.py")),
    ts: existsSync(join(OPENAI_SRC, "client.ts")),
  };
  if (have.python) {
    for (const f of PY_FILES) {
      mkdirSync(dirname(join(repo, "lib", f)), { recursive: true });
      cpSync(join(STDLIB, f), join(repo, "lib", f));
    }
  }
  if (have.ts) cpSync(OPENAI_SRC, join(repo, "openai"), { recursive: true });
  mkdirSync(repo, { recursive: true });
  const index = await buildIndex(repo, { cacheDir: null, workers: 0 });
  const rows: { run: string; locations: number; before: number; after: number }[] = [];
  for (const run of RUNS) {
    if (!have[run.needs]) {
      console.error(`left out (no ${run.needs === "python" ? STDLIB : OPENAI_SRC}): ${run.name}`);
      continue;
    }
    const tokens: Record<LocationSizing, number> = { whole: 0, change: 0 };
    let count = 0;
    for (const sizing of ["whole", "change"] as const) {
      const locs = await resolveBugLocations(index, run.locations, { sizing });
      if (locs.unresolved.length > 0) throw new Error(`${run.name}: ${locs.unresolved[0]!.reason}`);
      count = locs.length;
      const messages = patchMessages(
        {
          issue: { title: run.name, body: run.issue },
          locations: formatLocationsForModel(locs),
          history: [],
        },
        PATCH_FORMAT_HELP,
      );
      tokens[sizing] = approxTokens(messages.map((m) => m.content).join("\n"));
    }
    rows.push({ run: run.name, locations: count, before: tokens.whole, after: tokens.change });
  }
  const before = rows.map((r) => r.before);
  const after = rows.map((r) => r.after);
  const summary = {
    runs: rows.length,
    before: { median: median(before), largest: Math.max(...before) },
    after: { median: median(after), largest: Math.max(...after) },
  };
  if (values.json) console.log(JSON.stringify({ rows, summary }, null, 2));
  else {
    const w = Math.max(...rows.map((r) => r.run.length));
    console.log(`${"run".padEnd(w)}  locations  before  after  (prompt tokens)`);
    for (const r of rows) {
      console.log(
        `${r.run.padEnd(w)}  ${String(r.locations).padStart(9)}  ${String(r.before).padStart(6)}  ${String(r.after).padStart(5)}`,
      );
    }
    console.log(
      `\n${summary.runs} runs. Before (whole classes and files): median ${summary.before.median}, largest ${summary.before.largest}. ` +
        `After (the part that holds the change): median ${summary.after.median}, largest ${summary.after.largest}.`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
