import type { CodeIndex, SymbolHit } from "../index/code-index.ts";
import { findAncestorMethod, findCallables, findClasses, methodsOf } from "../index/lookup.ts";

/** A bug location as the model named it. Any field may be missing or sloppy. */
export interface LocationRequest {
  file?: string;
  class?: string;
  method?: string;
  intended_behavior?: string;
}

/** Which fields a location was resolved by, most precise first. */
export type ResolutionLevel = "method+class" | "method+file" | "class+file" | "class" | "method" | "file";

/** A code unit shown with a location for context. */
export interface ContextUnit {
  kind: "enclosing-class" | "ancestor-override";
  file: string;
  class: string | null;
  method: string | null;
  start: number;
  end: number;
  code: string;
}

/** A bug location resolved to real code (lines 1-based, inclusive; code re-read from disk). */
export interface ResolvedLocation {
  file: string;
  class: string | null;
  method: string | null;
  start: number;
  end: number;
  code: string;
  intendedBehavior: string;
  /** The same text under the name the model and the agents use. */
  intended_behavior: string;
  level: ResolutionLevel;
  /** Index of the request this came from. */
  request: number;
  /** The whole enclosing class and the nearest ancestor's override of the same method, when there are. */
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
 * class brings its whole class and the nearest ancestor's override of the method as context. Locations
 * are deduplicated by (file, start, end); code is read from disk now. Test files count only when named.
 */
export async function resolveBugLocations(
  index: CodeIndex,
  requests: readonly LocationRequest[],
): Promise<ResolvedLocations> {
  const out: ResolvedLocation[] = [];
  const unresolved: UnresolvedLocation[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < requests.length; i++) {
    const req = requests[i]!;
    const r = resolveOne(index, req);
    if ("reason" in r) {
      unresolved.push({ request: req, reason: r.reason });
      continue;
    }
    let added = 0;
    for (const u of r.units) {
      const key = `${u.file}:${u.start}:${u.end}`;
      if (seen.has(key)) continue;
      const loc = await materialize(index, u, req, i, r.level);
      if (!loc) continue;
      seen.add(key);
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
): { units: Unit[]; level: ResolutionLevel } | { reason: string } {
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
      return { units: preferred.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method+class" };
    if (direct.length > 0) {
      // The named file does not hold it (a wrong guess): the method of the named class still wins.
      return { units: direct.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method+class" };
    }
    // Defined in an ancestor: the inherited definition is the code that runs.
    for (const c of classes.filter(inFile).concat(classes.filter((c) => !inFile(c)))) {
      const inherited = findAncestorMethod(index, c, method, tests);
      if (inherited) return { units: [unitOf(inherited.method)], level: "method+class" };
    }
  }
  if (method && file !== null) {
    const hits = findCallables(index, method, true).filter(inFile);
    if (hits.length > 0) return { units: hits.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method+file" };
  }
  if (cls && file !== null) {
    const hits = findClasses(index, cls, true).hits.filter(inFile);
    if (hits.length > 0) return { units: hits.slice(0, MAX_PER_REQUEST).map(unitOf), level: "class+file" };
  }
  if (cls) {
    const hits = findClasses(index, cls, false).hits;
    if (hits.length > 0) return { units: hits.slice(0, MAX_PER_REQUEST).map(unitOf), level: "class" };
  }
  if (method) {
    const hits = findCallables(index, method, false);
    if (hits.length > 0) return { units: hits.slice(0, MAX_PER_REQUEST).map(unitOf), level: "method" };
  }
  if (file !== null) {
    const rec = index.file(file);
    const lines = rec ? Math.max(1, ...rec.symbols.map((s) => s.end)) : 1;
    return { units: [{ file, hit: null, start: 1, end: lines }], level: "file" };
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

async function readRange(
  index: CodeIndex,
  file: string,
  start: number,
  end: number | null,
): Promise<ReadRange | null> {
  const lines = await index.readLines(file);
  if (lines === null) return null;
  const last = end === null ? lines.length : Math.min(end, lines.length);
  return { start, end: last, code: lines.slice(start - 1, last).join("\n") };
}

interface ReadRange {
  start: number;
  end: number;
  code: string;
}

async function materialize(
  index: CodeIndex,
  u: Unit,
  req: LocationRequest,
  request: number,
  level: ResolutionLevel,
): Promise<ResolvedLocation | null> {
  const whole = u.hit === null;
  const body = await readRange(index, u.file, u.start, whole ? null : u.end);
  if (!body) return null;
  const sym = u.hit?.sym;
  const loc: ResolvedLocation = {
    file: u.file,
    class: sym ? (sym.kind === "class" ? sym.qualName : sym.className) : null,
    method: sym && sym.kind !== "class" ? sym.name : null,
    start: body.start,
    end: body.end,
    code: body.code,
    intendedBehavior: (req.intended_behavior ?? "").trim(),
    intended_behavior: (req.intended_behavior ?? "").trim(),
    level,
    request,
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
      const c = await readRange(index, ownerHit.file.path, ownerHit.sym.start, ownerHit.sym.end);
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
        const a = await readRange(index, anc.method.file.path, anc.method.sym.start, anc.method.sym.end);
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
  return loc;
}
