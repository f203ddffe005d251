import type { CodeIndex, SymbolHit } from "../index/code-index.ts";
import { linesNaming } from "./names.ts";
import { fileHead } from "./file-head.ts";
import { newCodeRequest, newCodeSentence } from "./new-code.ts";
import { findAncestorMethod, findCallables, findClasses, methodsOf } from "../index/lookup.ts";
import {
  classExcerpt,
  classOutline,
  type Excerpt,
  fileExcerpt,
  hintsOf,
  membersOf,
  type Range,
  SMALL_CLASS_LINES,
  SMALL_FILE_LINES,
  slicesOf,
} from "./excerpt.ts";

/** A bug location as the model named it. Any field may be missing or sloppy. */
export interface LocationRequest {
  file?: string;
  class?: string;
  method?: string;
  /** New code: the name of what to add (a method of `class`, or a definition of the module `file`). */
  add?: string;
  /** New code: the existing member it goes after. */
  after?: string;
  intended_behavior?: string;
  /** Short stretches of code the search showed (most recent last): where in a file the model looked. */
  seen?: readonly { file: string; start: number; end: number }[];
}

/** Which fields a location was resolved by, most precise first. */
export type ResolutionLevel = "method+class" | "method+file" | "class+file" | "class" | "method" | "file";

/** Verbatim lines of a file (1-based, inclusive). */
export interface CodeSlice {
  start: number;
  end: number;
  code: string;
}

/** A code unit shown with a location for context. */
export interface ContextUnit {
  kind: "enclosing-class" | "ancestor-override" | "file-head";
  file: string;
  class: string | null;
  method: string | null;
  start: number;
  end: number;
  /** The code shown: the unit's lines, or its slices with a `...` line for each gap. */
  code: string;
  /** The lines shown, verbatim: the whole unit, or for a long class its outline. */
  slices: CodeSlice[];
  /** Whether only part of the unit is shown. */
  partial: boolean;
}

/**
 * How much of a unit a location shows. `change` (the default): the unit that holds the change site, so a
 * new method shows the class's outline with the members around where it goes, a module-level edit the
 * statements pointed at with their neighbours and the file's outline, and an enclosing class its outline.
 * `whole`: every class and file whole (the sizing before locations were cut to the change).
 */
export type LocationSizing = "change" | "whole";

export interface ResolveOptions {
  sizing?: LocationSizing;
}

/** A bug location resolved to real code (lines 1-based, inclusive; code re-read from disk). */
export interface ResolvedLocation {
  file: string;
  class: string | null;
  method: string | null;
  start: number;
  end: number;
  /** The code shown: the unit's lines, or its slices with a `...` line for each gap. */
  code: string;
  intendedBehavior: string;
  /** The same text under the name the model and the agents use. */
  intended_behavior: string;
  level: ResolutionLevel;
  /** Index of the request this came from. */
  request: number;
  /** The lines shown, verbatim, in order: the whole unit, or the parts of it that hold the change. */
  slices: CodeSlice[];
  /** What the slices show when they are not the whole unit (a sentence for the model), else null. */
  shown: string | null;
  /** The enclosing class (its outline when long) and the nearest ancestor's override of the same method. */
  context: ContextUnit[];
}

export interface UnresolvedLocation {
  request: LocationRequest;
  reason: string;
}

/** The resolved locations; requests that matched nothing are listed in `unresolved` with the reason. */
export type ResolvedLocations = ResolvedLocation[] & { unresolved: UnresolvedLocation[] };

/** At most this many units from one request (a bare method name can match many definitions). */
const MAX_PER_REQUEST = 5;

function clean(s: string | undefined): string {
  return (s ?? "")
    .trim()
    .replace(/^["'`]|["'`]$/g, "")
    .replace(/\(\s*\)$/, "")
    .trim();
}

/**
 * Resolves what the model said to code units, most precise first: method+class, method+file,
 * class+file, class, method, file. `Class.method` in the method (or class) field is split. A method of a
 * class brings its class (the outline of a long one) and the nearest ancestor's override of the method as
 * context. Each location shows the smallest part of its unit that holds the change (see `LocationSizing`).
 * Locations are deduplicated by (file, start, end); code is read from disk now. Test files count only when
 * named.
 */
export async function resolveBugLocations(
  index: CodeIndex,
  requests: readonly LocationRequest[],
  opts: ResolveOptions = {},
): Promise<ResolvedLocations> {
  const sizing = opts.sizing ?? "change";
  const out: ResolvedLocation[] = [];
  const unresolved: UnresolvedLocation[] = [];
  const seen = new Map<string, ResolvedLocation>();
  for (let i = 0; i < requests.length; i++) {
    const req = newCodeRequest(requests[i]!);
    const r = resolveOne(index, req);
    if ("reason" in r) {
      unresolved.push({ request: req, reason: r.reason });
      continue;
    }
    let added = 0;
    for (const u of r.units) {
      const key = `${u.file}:${u.start}:${u.end}`;
      const earlier = seen.get(key);
      if (earlier && (sizing === "whole" || earlier.shown === null)) continue;
      const loc = await materialize(index, u, req, i, r.level, r.missing, sizing);
      if (!loc) continue;
      if (earlier) {
        // The same unit named again (say a class, for a new method and for an attribute): one location
        // that shows what each request points at.
        await mergeInto(index, earlier, loc);
        continue;
      }
      seen.set(key, loc);
      out.push(loc);
      added++;
    }
    if (
      added === 0 &&
      r.units.length > 0 &&
      r.units.every((u) => seen.has(`${u.file}:${u.start}:${u.end}`))
    ) {
      continue; // a duplicate of an earlier location: nothing lost
    }
    if (added === 0) unresolved.push({ request: req, reason: "the code could not be read from disk" });
  }
  return Object.assign(out, { unresolved });
}

interface Unit {
  file: string;
  hit: SymbolHit | null;
  start: number;
  end: number;
}

function unitOf(hit: SymbolHit): Unit {
  return { file: hit.file.path, hit, start: hit.sym.start, end: hit.sym.end };
}

function resolveOne(
  index: CodeIndex,
  req: LocationRequest,
): { units: Unit[]; level: ResolutionLevel; missing: string | null } | { reason: string } {
  let method = clean(req.method);
  let cls = clean(req.class);
  const fileArg = clean(req.file);
  // `Class.method` in one field.
  if (method.includes(".")) {
    const dot = method.lastIndexOf(".");
    if (!cls) cls = method.slice(0, dot);
    method = method.slice(dot + 1);
  }
  if (cls && !method && cls.includes(".") && findClasses(index, cls, true).hits.length === 0) {
    const dot = cls.lastIndexOf(".");
    method = cls.slice(dot + 1);
    cls = cls.slice(0, dot);
  }
  let file: string | null = null;
  let fileProblem = "";
  if (fileArg) {
    const r = index.resolveFile(fileArg);
    if (r.ok) file = r.file;
    else fileProblem = r.message;
  }
  if (!method && !cls && !fileArg) return { reason: "the location names no file, class or method" };
  const inFile = (h: SymbolHit): boolean => file === null || h.file.path === file;
  // Test files count when the file is named, never by name alone.
  const tests = file !== null && (index.file(file)?.isTest ?? false);

  if (method && cls) {
    const classes = findClasses(index, cls, tests || file !== null).hits.filter(
      (c) => !c.file.isTest || tests,
    );
    const direct: SymbolHit[] = [];
    for (const c of classes) direct.push(...methodsOf(index, c).filter((m) => m.sym.name === method));
    const preferred = direct.filter(inFile);
    if (preferred.length > 0)
      return { units: preferred.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method+class", missing: null };
    if (direct.length > 0) {
      // The named file does not hold it (a wrong guess): the method of the named class still wins.
      return { units: direct.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method+class", missing: null };
    }
    // Defined in an ancestor: the inherited definition is the code that runs.
    for (const c of classes.filter(inFile).concat(classes.filter((c) => !inFile(c)))) {
      const inherited = findAncestorMethod(index, c, method, tests);
      if (inherited) return { units: [unitOf(inherited.method)], level: "method+class", missing: null };
    }
  }
  if (method && file !== null) {
    const hits = findCallables(index, method, true).filter(inFile);
    if (hits.length > 0)
      return { units: hits.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method+file", missing: null };
  }
  if (cls && file !== null) {
    const hits = findClasses(index, cls, true).hits.filter(inFile);
    if (hits.length > 0)
      return {
        units: hits.slice(0, MAX_PER_REQUEST).map(unitOf),
        level: "class+file",
        missing: method || null,
      };
  }
  if (cls) {
    const hits = findClasses(index, cls, false).hits;
    if (hits.length > 0)
      return { units: hits.slice(0, MAX_PER_REQUEST).map(unitOf), level: "class", missing: method || null };
  }
  if (method) {
    const hits = findCallables(index, method, false);
    if (hits.length > 0)
      return { units: hits.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method", missing: null };
  }
  if (file !== null) {
    const rec = index.file(file);
    const lines = rec ? Math.max(1, ...rec.symbols.map((s) => s.end)) : 1;
    return {
      units: [{ file, hit: null, start: 1, end: lines }],
      level: "file",
      missing: method || cls || null,
    };
  }
  const named = [
    method && `method \`${method}\``,
    cls && `class \`${cls}\``,
    fileArg && `file \`${fileArg}\``,
  ].filter(Boolean);
  return {
    reason: `no ${named.join(" / ")} found in the repository${fileProblem ? ` (${fileProblem})` : ""}`,
  };
}

/** Adds what `more` shows of the same unit to `loc`, and its intended behaviour when it says more. */
async function mergeInto(index: CodeIndex, loc: ResolvedLocation, more: ResolvedLocation): Promise<void> {
  const lines = await index.readLines(loc.file);
  if (lines === null) return;
  loc.slices = slicesOf(
    lines,
    [...loc.slices, ...more.slices].map((sl): Range => [sl.start, sl.end]),
  );
  loc.code = shownCode(loc.slices);
  if (loc.slices.length === 1 && loc.slices[0]!.start === loc.start && loc.slices[0]!.end === loc.end) {
    loc.shown = null;
  } else if (more.shown) {
    // The sentence about new code, when the other request adds some; the outline is said once.
    const note = /`[^`]+` is not in this \w+ yet: .*$/.exec(more.shown)?.[0];
    if (note && !loc.shown?.includes(note)) loc.shown = `${loc.shown ?? ""} ${note}`.trim();
  }
  if (more.intendedBehavior && !loc.intendedBehavior.includes(more.intendedBehavior)) {
    const text = loc.intendedBehavior
      ? `${loc.intendedBehavior}\n${more.intendedBehavior}`
      : more.intendedBehavior;
    loc.intendedBehavior = text;
    loc.intended_behavior = text;
  }
}

/** The code shown for slices: their lines, with a `...` line where lines are left out. */
function shownCode(slices: readonly CodeSlice[]): string {
  return slices.map((sl) => sl.code).join("\n...\n");
}

/** A sentence that tells the model what part of a unit it sees. */
function describeExcerpt(
  what: "class" | "file",
  x: Excerpt,
  missing: string | null,
  appears: readonly number[] = [],
): string {
  const outline =
    what === "class"
      ? "the class's outline (its header, attributes and each member's first lines)"
      : "the file's outline (each definition's first lines and each module-level statement's first line)";
  const parts = [`Shown: ${outline}`];
  const full = x.whole.map((n) => `\`${n}\``);
  if (x.statements.length > 0) {
    const at = x.statements.slice(0, 6).join(", ") + (x.statements.length > 6 ? " and more" : "");
    const many = x.statements.length > 1;
    full.push(
      `the statement${many ? "s" : ""} at line${many ? "s" : ""} ${at} and those beside ${many ? "them" : "it"}`,
    );
  }
  if (full.length > 0) parts.push(`with ${full.join(", ")} in full`);
  if (x.ends.length > 0) {
    const names = x.ends.map((n) => `\`${n}\``).join(", ");
    parts.push(`${full.length > 0 ? "and " : "with "}${names} in part (too long to show whole)`);
  }
  let text = `${parts.join(" ")}; \`...\` marks lines left out.`;
  if (missing && appears.length > 0) {
    // The index knows no definition of the name here, but the text holds it: never say it is absent.
    const at = appears.join(", ");
    text += ` The index has no definition named \`${missing}\` in this ${what}, but the name is written at line${appears.length > 1 ? "s" : ""} ${at}: look there before adding code.`;
  } else if (missing && x.insertion)
    text += ` \`${missing}\` is not in this ${what} yet: new code would go ${x.insertion}.`;
  return text;
}

async function materialize(
  index: CodeIndex,
  u: Unit,
  req: LocationRequest,
  request: number,
  level: ResolutionLevel,
  missing: string | null,
  sizing: LocationSizing,
): Promise<ResolvedLocation | null> {
  const lines = await index.readLines(u.file);
  if (lines === null) return null;
  const whole = u.hit === null;
  const end = whole ? lines.length : Math.min(u.end, lines.length);
  const sym = u.hit?.sym;
  const intended = (req.intended_behavior ?? "").trim();
  let ranges: Range[] = [[u.start, end]];
  let shown: string | null = null;
  if (sizing === "change") {
    const seen = (req.seen ?? []).filter((s) => s.file === u.file).map((s): Range => [s.start, s.end]);
    const hints = { ...hintsOf(req.file ?? "", intended, missing, seen), after: clean(req.after) || null };
    const rec = index.file(u.file);
    if (whole && rec && lines.length > SMALL_FILE_LINES) {
      const x = fileExcerpt(lines, rec, hints);
      ranges = x.ranges;
      shown = describeExcerpt("file", x, missing, missing ? linesNaming(lines, missing, u.start, end) : []);
    } else if (u.hit && sym?.kind === "class" && end - u.start + 1 > SMALL_CLASS_LINES) {
      const x = classExcerpt(lines, sym, membersOf(u.hit.file, sym), hints);
      ranges = x.ranges;
      shown = describeExcerpt("class", x, missing, missing ? linesNaming(lines, missing, u.start, end) : []);
    }
  }
  const slices = slicesOf(lines, ranges);
  if (slices.length === 1 && slices[0]!.start === u.start && slices[0]!.end === end) shown = null;
  if (shown === null && req.add) shown = newCodeSentence(req, sym);
  const loc: ResolvedLocation = {
    file: u.file,
    class: sym ? (sym.kind === "class" ? sym.qualName : sym.className) : null,
    method: sym && sym.kind !== "class" ? sym.name : null,
    start: u.start,
    end,
    code: shownCode(slices),
    intendedBehavior: intended,
    intended_behavior: intended,
    level,
    request,
    slices,
    shown,
    context: [],
  };
  if (u.hit && u.hit.sym.kind === "method" && u.hit.sym.className) {
    const owner = u.hit.file.symbols.find(
      (s) =>
        s.kind === "class" && s.qualName === u.hit!.sym.className && s.start <= u.start && s.end >= u.end,
    );
    const ownerHit = owner
      ? { file: u.hit.file, sym: owner }
      : (findClasses(index, u.hit.sym.className, true).hits.find((h) => h.file.path === u.file) ??
        findClasses(index, u.hit.sym.className, true).hits[0]);
    if (ownerHit) {
      const c = await readUnit(index, ownerHit.file.path, ownerHit.sym.start, ownerHit.sym.end, (all) =>
        sizing === "change" && ownerHit.sym.end - ownerHit.sym.start + 1 > SMALL_CLASS_LINES
          ? classOutline(all, ownerHit.sym, membersOf(ownerHit.file, ownerHit.sym), null)
          : null,
      );
      if (c) {
        loc.context.push({
          kind: "enclosing-class",
          file: ownerHit.file.path,
          class: ownerHit.sym.qualName,
          method: null,
          ...c,
        });
      }
      const anc = findAncestorMethod(index, ownerHit, u.hit.sym.name, u.hit.file.isTest);
      if (anc) {
        const a = await readUnit(
          index,
          anc.method.file.path,
          anc.method.sym.start,
          anc.method.sym.end,
          () => null,
        );
        if (a) {
          loc.context.push({
            kind: "ancestor-override",
            file: anc.method.file.path,
            class: anc.owner.sym.qualName,
            method: anc.method.sym.name,
            ...a,
          });
        }
      }
    }
  }
  // The file's head (imports, module constants) first, unless the location shows it already.
  const head = await fileHead(index, u.file, slices[0]?.start ?? u.start);
  if (head) loc.context.unshift(head);
  return loc;
}

/** A context unit's lines: whole, or the ranges `part` picks (null: whole). */
async function readUnit(
  index: CodeIndex,
  file: string,
  start: number,
  end: number,
  part: (lines: readonly string[]) => Range[] | null,
): Promise<{ start: number; end: number; code: string; slices: CodeSlice[]; partial: boolean } | null> {
  const lines = await index.readLines(file);
  if (lines === null) return null;
  const last = Math.min(end, lines.length);
  const ranges = part(lines)?.map(([a, b]): Range => [Math.max(a, start), Math.min(b, last)]) ?? [
    [start, last],
  ];
  const slices = slicesOf(lines, ranges);
  const partial = !(slices.length === 1 && slices[0]!.start === start && slices[0]!.end === last);
  return { start, end: last, code: shownCode(slices), slices, partial };
}
