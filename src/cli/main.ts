import { pathToFileURL } from "node:url";
import { UserError } from "../core/errors.ts";

/** What a command module exports: `run(argv, io)` resolving to the process exit code. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  isTTY: boolean;
}

export type CommandRun = (argv: string[], io: CliIO) => Promise<number>;

interface CommandInfo {
  usage: string;
  summary: string;
  module: string;
}

/** Every command, in the order `--help` lists them. Each lives in `src/cli/commands/<name>.ts`. */
export const COMMANDS: Record<string, CommandInfo> = {
  index: {
    usage: "auto-fix index <dir> [--json]",
    summary: "Index a repository's code with tree-sitter (cached) and print counts.",
    module: "index",
  },
  search: {
    usage: "auto-fix search <dir> <api> [args...] [--json] [--include-tests]",
    summary: "Run one search API (search_class, search_method, search_code, ...) as the model sees it.",
    module: "search",
  },
  locate: {
    usage: "auto-fix locate <dir> [--file F] [--class C] [--method M] --json",
    summary: "Resolve a bug location to real code units.",
    module: "locate",
  },
  apply: {
    usage: "auto-fix apply <dir> <response-file> [--json] [--write]",
    summary: "Apply a model answer in <file>/<original>/<patched> form; writes only with --write.",
    module: "apply",
  },
  sandbox: {
    usage: "auto-fix sandbox <dir> [--network] [--timeout S] -- <command...>",
    summary: "Run a command in the sandbox the pipeline uses and print what it did.",
    module: "sandbox",
  },
  fix: {
    usage:
      "auto-fix fix --repo <dir> --issue <file> [--out <dir>] [--test-cmd <cmd>] [--strategy linear|tree] [--json]",
    summary:
      "Run the whole repair pipeline on a local checkout (never modifies it); more options and the model settings in docs/fix.md.",
    module: "fix",
  },
  worker: {
    usage: "auto-fix worker [--concurrency N] [--grace-seconds S] [--port P] [--host H]",
    summary: "Take repair jobs from the shared queue (REDIS_URL) and run them.",
    module: "worker",
  },
};

export function helpText(): string {
  const lines = [
    "auto-fix: repairs bugs reported in GitHub issues.",
    "",
    "Usage:",
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`),
    "",
    "Run `auto-fix <command> --help` for a command's options.",
  ];
  return `${lines.join("\n")}\n`;
}

export async function main(argv: string[], io?: Partial<CliIO>): Promise<number> {
  const fullIo: CliIO = {
    stdout: io?.stdout ?? ((t) => process.stdout.write(t)),
    stderr: io?.stderr ?? ((t) => process.stderr.write(t)),
    env: io?.env ?? process.env,
    cwd: io?.cwd ?? process.cwd(),
    isTTY: io?.isTTY ?? Boolean(process.stderr.isTTY),
  };
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    fullIo.stdout(helpText());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version") {
    fullIo.stdout("auto-fix 0.1.0\n");
    return 0;
  }
  const info = COMMANDS[name];
  if (!info) {
    fullIo.stderr(`auto-fix: unknown command '${name}'.\n\n${helpText()}`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    fullIo.stdout(`Usage: ${info.usage}\n${info.summary}\n`);
    return 0;
  }
  const url = pathToFileURL(new URL(`./commands/${info.module}.ts`, import.meta.url).pathname).href;
  let mod: { run?: CommandRun };
  try {
    mod = (await import(url)) as { run?: CommandRun };
  } catch (err) {
    if (
      (err as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      String(err).includes(`${info.module}.ts`)
    ) {
      fullIo.stderr(`auto-fix: the '${name}' command is not available in this build.\n`);
      return 2;
    }
    throw err;
  }
  if (typeof mod.run !== "function") {
    fullIo.stderr(`auto-fix: the '${name}' command is not available in this build.\n`);
    return 2;
  }
  try {
    return await mod.run(rest, fullIo);
  } catch (err) {
    if (err instanceof UserError) {
      fullIo.stderr(`auto-fix ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    fullIo.stderr(`auto-fix ${name}: internal error: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}
