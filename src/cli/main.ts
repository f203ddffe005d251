import { pathToFileURL } from "node:url";
import { UserError } from "../core/errors.ts";
import { inertForTerminal } from "../core/terminal-text.ts";
import { commandHelp, type ParsedArgs, parseCommandArgs } from "./args.ts";
import { COMMAND_SPECS, specFor } from "./specs.ts";

/** What a command module exports: `run(args, io)` resolving to the process exit code. */
export interface CliIO {
  /** Text for the user; terminal controls in it are made visible (see core/terminal-text.ts). */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr as is, for the progress line's own cursor controls; only trusted text goes here. */
  stderrRaw: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stderr is a terminal: show a progress line rewritten in place. */
  isTTY: boolean;
}

export type CommandRun = (args: ParsedArgs, io: CliIO) => Promise<number>;

export function helpText(): string {
  const lines = [
    "auto-fix: repairs bugs reported in GitHub issues.",
    "",
    "Usage:",
    ...COMMAND_SPECS.map(
      (c) => `  auto-fix ${c.name}${c.operands ? ` ${c.operands}` : ""} [options]\n      ${c.summary}`,
    ),
    "",
    "Run `auto-fix <command> --help` for a command's options.",
  ];
  return `${lines.join("\n")}\n`;
}

export async function main(argv: string[], io?: Partial<CliIO>): Promise<number> {
  const out = io?.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io?.stderr ?? ((t: string) => void process.stderr.write(t));
  const fullIo: CliIO = {
    stdout: (t) => out(inertForTerminal(t)),
    stderr: (t) => err(inertForTerminal(t)),
    stderrRaw: io?.stderrRaw ?? err,
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
  const spec = specFor(name);
  if (!spec) {
    fullIo.stderr(`auto-fix: unknown command '${name}'.\n\n${helpText()}`);
    return 2;
  }
  let parsed: ReturnType<typeof parseCommandArgs>;
  try {
    parsed = parseCommandArgs(spec, rest);
  } catch (e) {
    fullIo.stderr(
      `auto-fix ${name}: ${(e as Error).message}\nRun 'auto-fix ${name} --help' for its options.\n`,
    );
    return 2;
  }
  try {
    if (parsed.help) {
      fullIo.stdout(commandHelp(spec));
      return 0;
    }
    const url = pathToFileURL(new URL(`./commands/${spec.name}.ts`, import.meta.url).pathname).href;
    const mod = (await import(url)) as { run?: CommandRun };
    if (typeof mod.run !== "function") {
      fullIo.stderr(`auto-fix: the '${name}' command is not available in this build.\n`);
      return 2;
    }
    return await mod.run(parsed.args, fullIo);
  } catch (e) {
    if (e instanceof UserError) {
      fullIo.stderr(`auto-fix ${name}: ${e.message}\n`);
      return e.exitCode;
    }
    fullIo.stderr(`auto-fix ${name}: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}
