import { cpp } from "./cpp/index.ts";
import { go } from "./go/index.ts";
import { java } from "./java/index.ts";
import { javascript } from "./javascript/index.ts";
import { python } from "./python/index.ts";
import { rust } from "./rust/index.ts";
import { PLAIN_SYNTAX } from "./shared/text-syntax.ts";
import { tsx, typescript } from "./typescript/index.ts";
import type { Language, LanguageId, ReproducerSpec, TextSyntax } from "./types.ts";

/** Every language auto-fix reads: one line per language folder. */
const REGISTRY: readonly Language[] = [python, javascript, typescript, tsx, java, go, rust, cpp];

/** The ids of the languages auto-fix reads. */
export const LANGUAGES: readonly LanguageId[] = REGISTRY.map((l) => l.id);

const BY_ID = new Map<LanguageId, Language>(REGISTRY.map((l) => [l.id, l]));
const BY_EXTENSION = new Map<string, Language>(
  REGISTRY.flatMap((l) => l.extensions.map((e) => [e, l] as const)),
);

/** The language of `id` (every LanguageId has one). */
export function languageOf(id: LanguageId): Language {
  const lang = BY_ID.get(id);
  if (!lang) throw new Error(`no language folder for ${JSON.stringify(id)}`);
  return lang;
}

/** Every language, in the registry's order. */
export const allLanguages = (): readonly Language[] => REGISTRY;

/** The language of a file by its extension, or null when auto-fix does not read it. */
export function languageForPath(path: string): LanguageId | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  return BY_EXTENSION.get(path.slice(dot).toLowerCase())?.id ?? null;
}

/** How the patch engine reads the lines of `path`: its language's text syntax, or brace-delimited text. */
export function textSyntaxFor(path: string): TextSyntax {
  const id = languageForPath(path);
  return id ? languageOf(id).text : PLAIN_SYNTAX;
}

/** The languages detection may report for a repository (TSX counts as TypeScript). */
export function projectLanguages(): readonly Language[] {
  return REGISTRY.filter((l) => l.markers.project === l.id);
}

/** The reproducer of a runtime name (`python`, `node`, `rust`), or null for a runtime no language has. */
export function reproducerForRuntime(runtime: string): ReproducerSpec | null {
  return REGISTRY.find((l) => l.reproducer.runtime === runtime)?.reproducer ?? null;
}

/** What the model is told of a script for a custom command: nothing of a language. */
const COMMAND_PROMPT: ReproducerSpec["prompt"] = { name: "script", tags: [], notes: "" };

/**
 * What the model is told when it writes a reproducer: the repository's language's own words when the
 * runtime is its language's (TypeScript's notes on importing `.ts` files), else the runtime's.
 */
export function reproducerPrompt(language: string, runtime: string): ReproducerSpec["prompt"] {
  const own = REGISTRY.find((l) => l.id === language);
  if (own && own.reproducer.runtime === runtime) return own.reproducer.prompt;
  return reproducerForRuntime(runtime)?.prompt ?? COMMAND_PROMPT;
}

/** The runtime names of the languages' reproducers, each once (`python`, `node`, `java`, ...). */
export const REPRODUCER_RUNTIMES: readonly string[] = [...new Set(REGISTRY.map((l) => l.reproducer.runtime))];

/**
 * What auto-fix can and cannot do in a repository in none of its languages, for the start of a run and
 * its report.
 */
export function unknownLanguageNote(): string {
  const titles = REGISTRY.filter((l) => l.markers.project === l.id).map((l) => l.title);
  return [
    `This repository is in none of the languages auto-fix reads (${titles.join(", ")}).`,
    "Without one: the code index holds no definitions, so the search finds classes and functions only as text;",
    "no reproducer is written unless .github/auto-fix.yml names one (`reproducer: {runtime: command, command: '...'}`);",
    "a change that only moves whitespace cannot be told from a code change (no grammar reads the file);",
    "the repository's tests run only when `test:` names their command. Patches are still applied and checked by the reviewer.",
  ].join(" ");
}
