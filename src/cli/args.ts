import { UserError } from "../core/errors.ts";

/** One option of a command, as the parser reads it and `--help` lists it. */
export interface OptionSpec {
  name: string;
  short?: string;
  type: "boolean" | "string";
  /** A string option given more than once collects every value. */
  multiple?: boolean;
  /** The value's placeholder in the help (`--timeout S`). */
  value?: string;
  help: string;
}

/** A command's argument table: the single source of its parsing and of its `--help`. */
export interface CommandSpec {
  name: string;
  /** Positional arguments as the usage line shows them (`<dir> <api> [args...]`). */
  operands: string;
  summary: string;
  options: readonly OptionSpec[];
  /**
   * How many positional arguments come before the command's own arguments (a search API's arguments).
   * `-h`/`--help` after them is an argument, not a request for help. Default: never.
   */
  helpBefore?: number;
  /** What follows `--`: more positional arguments (default) or a command to run (`sandbox`). */
  afterDash?: "positionals" | "command";
  /** Paragraphs printed after the options (the search APIs, the settings read from the environment). */
  more?: () => string;
}

export type OptionValue = string | boolean | string[] | undefined;

/** The parsed command line of one command. */
export class ParsedArgs {
  readonly positionals: string[];
  /** The words after `--` for a command that runs them (`sandbox`); null without `--`. */
  readonly command: string[] | null;
  readonly #values: Map<string, OptionValue>;

  constructor(values: Map<string, OptionValue>, positionals: string[], command: string[] | null) {
    this.#values = values;
    this.positionals = positionals;
    this.command = command;
  }

  flag(name: string): boolean {
    return this.#values.get(name) === true;
  }

  string(name: string): string | undefined {
    const v = this.#values.get(name);
    if (Array.isArray(v)) return v[v.length - 1];
    return typeof v === "string" ? v : undefined;
  }

  list(name: string): string[] {
    const v = this.#values.get(name);
    if (Array.isArray(v)) return v;
    return typeof v === "string" ? [v] : [];
  }
}

export type ParseOutcome = { help: true } | { help: false; args: ParsedArgs };

const HELP: OptionSpec = { name: "help", short: "h", type: "boolean", help: "Show this help and exit." };

/**
 * Parses a command's arguments against its table. Options may come anywhere before `--`; `-h`/`--help`
 * asks for help only before `--` and before the command's own arguments (so that `sandbox DIR -- grep -h`
 * runs grep and `search DIR search_code -- -h` searches for `-h`). An unknown option, a missing value or a
 * value given to a flag is a UserError (exit 2) naming it.
 */
export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParseOutcome {
  const long = new Map<string, OptionSpec>();
  const short = new Map<string, OptionSpec>();
  for (const o of [...spec.options, HELP]) {
    long.set(o.name, o);
    if (o.short) short.set(o.short, o);
  }
  const values = new Map<string, OptionValue>();
  const positionals: string[] = [];
  let command: string[] | null = null;
  const helpLimit = spec.helpBefore ?? Number.POSITIVE_INFINITY;
  const unknown = (word: string) => {
    const near = word.startsWith("--") ? closestOption(word.slice(2), [...long.keys()]) : null;
    return new UserError(
      `unknown option '${word}' for '${spec.name}'` +
        (near ? `; did you mean '--${near}'?` : "") +
        (spec.helpBefore !== undefined && positionals.length >= spec.helpBefore
          ? " (put -- before arguments that begin with '-')"
          : ""),
    );
  };
  const set = (o: OptionSpec, value: string | true, word: string) => {
    if (o.type === "boolean") {
      if (value !== true) throw new UserError(`option '--${o.name}' takes no value (got '${word}')`);
      values.set(o.name, true);
      return;
    }
    if (value === true)
      throw new UserError(`option '--${o.name}' needs a value: --${o.name} ${o.value ?? "VALUE"}`);
    if (o.multiple) {
      const prev = values.get(o.name);
      values.set(o.name, [...(Array.isArray(prev) ? prev : []), value]);
    } else values.set(o.name, value);
  };
  /** The value of a string option given as a separate word; a word that is itself an option is not one. */
  const nextValue = (i: number, o: OptionSpec): string | true => {
    const next = argv[i + 1];
    if (next === undefined || next === "--") return true;
    if (next.startsWith("-") && next.length > 1) {
      throw new UserError(
        `option '--${o.name}' needs a value; to give one that begins with '-', write --${o.name}=${next}`,
      );
    }
    return next;
  };

  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") {
      const rest = argv.slice(i + 1);
      if (spec.afterDash === "command") command = rest;
      else positionals.push(...rest);
      break;
    }
    const wantsHelp = word === "--help" || word === "-h";
    if (wantsHelp) {
      if (positionals.length < helpLimit) return { help: true };
      positionals.push(word);
      continue;
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      const o = long.get(name);
      if (!o || o === HELP) throw unknown(eq === -1 ? word : word.slice(0, eq));
      if (eq !== -1) set(o, word.slice(eq + 1), word);
      else if (o.type === "string") {
        const v = nextValue(i, o);
        set(o, v, word);
        if (v !== true) i++;
      } else set(o, true, word);
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      // One short option (`-v`), a cluster of short flags (`-vq`), or a short option with its value.
      for (let k = 1; k < word.length; k++) {
        const o = short.get(word[k]!);
        if (!o || o === HELP) throw unknown(k === 1 ? word : `-${word[k]}`);
        if (o.type === "boolean") {
          set(o, true, word);
          continue;
        }
        const attached = word.slice(k + 1);
        if (attached) set(o, attached, word);
        else {
          const v = nextValue(i, o);
          set(o, v, word);
          if (v !== true) i++;
        }
        break;
      }
      continue;
    }
    positionals.push(word);
  }
  return { help: false, args: new ParsedArgs(values, positionals, command) };
}

/** A command's `--help`, generated from its table: usage, summary, every option, then `more`. */
export function commandHelp(spec: CommandSpec): string {
  const dash = spec.afterDash === "command" ? " -- <command...>" : "";
  const lines = [
    `Usage: auto-fix ${spec.name}${spec.operands ? ` ${spec.operands}` : ""} [options]${dash}`,
    "",
    spec.summary,
    "",
    "Options:",
  ];
  const rows = [...spec.options, HELP].map((o) => {
    const names = `${o.short ? `-${o.short}, ` : "    "}--${o.name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`;
    return { names, help: o.multiple ? `${o.help} (may be repeated)` : o.help };
  });
  const width = Math.min(30, Math.max(...rows.map((r) => r.names.length)));
  for (const r of rows) {
    const pad = r.names.length > width ? `\n${" ".repeat(width + 4)}` : " ".repeat(width - r.names.length);
    lines.push(`  ${r.names}${pad}  ${r.help}`);
  }
  const more = spec.more?.();
  if (more) lines.push("", more.trimEnd());
  return `${lines.join("\n")}\n`;
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours) between two short words. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The option a mistyped name most likely meant: within 2 edits (1 for short names), else a unique prefix. */
export function closestOption(name: string, options: readonly string[]): string | null {
  const candidates = options.filter((o) => o !== "help");
  let best: string | null = null;
  let bestD = Number.POSITIVE_INFINITY;
  for (const o of candidates) {
    const dist = distance(name, o);
    if (dist < bestD) {
      best = o;
      bestD = dist;
    }
  }
  if (best && bestD <= (name.length <= 4 ? 1 : 2)) return best;
  const prefixed = candidates.filter((o) => o.startsWith(name) && name.length >= 2);
  return prefixed.length === 1 ? prefixed[0]! : null;
}
