import { openTree, type TreeFs } from "../../core/tree-fs.ts";
import { unifiedDiff } from "../../patch/diff.ts";
import {
  computePatch,
  type PatchOptions,
  type PatchResult,
  type RepoFiles,
  type RepoRead,
} from "../../patch/index.ts";
import { decodeFile, type Encoding, encodeFile, splitText } from "../../patch/text.ts";
import { diffKey } from "./evaluate.ts";
import type { ApplyResult } from "./types.ts";

/** One file of a node's program that differs from the original. */
export interface ProgramFile {
  text: string;
  encoding: Encoding;
  /** The file does not exist in the original. */
  created: boolean;
}

/** A node's program: the files it changes against the original (everything else is the original). */
export type Program = ReadonlyMap<string, ProgramFile>;

type Original = { text: string; encoding: Encoding } | null;

/**
 * The programs of a search, keyed by their cumulative diff. A candidate is applied on top of its
 * parent's program through an overlay of the original repository, so the patch engine matches the
 * model's `<original>` blocks against the code as the parent left it; the child's diff is taken
 * against the original, whatever its depth.
 */
export class ProgramStore {
  readonly base: RepoFiles;
  private readonly programs = new Map<string, Program>();
  private readonly originals = new Map<string, Original>();
  private readonly patchOptions: PatchOptions;

  constructor(base: RepoFiles, patchOptions: PatchOptions = {}) {
    this.base = base;
    this.patchOptions = patchOptions;
    this.programs.set(diffKey(""), new Map());
  }

  /** The program a diff stands for (the original for ""). */
  programFor(diff: string): Program {
    const p = this.programs.get(diffKey(diff));
    if (!p) throw new Error("tree search: no program recorded for this diff");
    return p;
  }

  /** The original repository with `program` laid over it. */
  repoFor(program: Program): RepoFiles {
    const base = this.base;
    return {
      root: base.root,
      async listFiles() {
        const files = await base.listFiles();
        const created = [...program.entries()].filter(([, f]) => f.created).map(([p]) => p);
        return created.length === 0 ? files : [...new Set([...files, ...created])].sort();
      },
      async readFile(path: string): Promise<RepoRead> {
        const f = program.get(path);
        if (f) return { kind: "file", bytes: encodeFile(f.text, f.encoding) };
        return base.readFile(path);
      },
    };
  }

  async original(path: string): Promise<Original> {
    if (this.originals.has(path)) return this.originals.get(path) ?? null;
    const read = await this.base.readFile(path);
    const decoded = read.kind === "file" ? decodeFile(path, read.bytes) : null;
    const value: Original = decoded ? { text: decoded.text, encoding: decoded.encoding } : null;
    this.originals.set(path, value);
    return value;
  }

  /**
   * Applies a model answer on top of the parent's program. On success the new program is recorded
   * under its cumulative diff (a change that undoes the parent's yields the diff of an earlier node,
   * which the search then skips as a duplicate).
   */
  async apply(answer: string, parentDiff: string): Promise<ApplyResult & { result: PatchResult }> {
    const parent = this.programFor(parentDiff);
    const result = await computePatch(this.repoFor(parent), answer, this.patchOptions);
    if (result.status !== "APPLICABLE_PATCH") {
      const status = result.status === "MATCHED_BUT_SYNTAX_ERROR" ? "syntax-error" : "not-applicable";
      const message = `${result.status}: ${result.feedback.trim() || "the answer contained no edit in the required format"}`;
      return { ok: false, status, message, result };
    }
    const next = new Map(parent);
    for (const ch of result.changedFiles) {
      const orig = await this.original(ch.path);
      if (orig && orig.text === ch.after) next.delete(ch.path);
      else
        next.set(ch.path, {
          text: ch.after,
          encoding: ch.encoding ?? orig?.encoding ?? "utf8",
          created: !orig,
        });
    }
    const diff = await this.diffOf(next);
    this.programs.set(diffKey(diff), next);
    return { ok: true, diff, changedFiles: [...next.keys()].sort(), result };
  }

  /** The program's unified diff against the original, files in path order. */
  async diffOf(program: Program): Promise<string> {
    const parts: string[] = [];
    for (const path of [...program.keys()].sort()) {
      const f = program.get(path)!;
      const orig = await this.original(path);
      const before = orig ? splitText(orig.text, orig.encoding) : null;
      parts.push(unifiedDiff(path, before, splitText(f.text, f.encoding)));
    }
    return parts.join("");
  }
}

/**
 * Keeps one private work tree in step with a chosen program: files the previous program changed are put
 * back (or removed, when it created them) before the new program's files are written. The tree is one
 * in which sandboxed code ran, so every write goes through tree-fs: a link planted at a program's path
 * is replaced, never written through, and a link on the way to it is refused.
 */
export class WorkTreeSync {
  readonly dir: string;
  private readonly store: ProgramStore;
  private readonly tree: TreeFs;
  private written = new Set<string>();

  constructor(dir: string, store: ProgramStore) {
    this.dir = dir;
    this.store = store;
    this.tree = openTree(dir);
  }

  async show(program: Program): Promise<void> {
    for (const path of this.written) {
      if (program.has(path)) continue;
      const orig = await this.store.original(path);
      if (orig) this.tree.write(path, encodeFile(orig.text, orig.encoding), { onLink: "replace" });
      else this.tree.remove(path);
    }
    for (const [path, f] of program) {
      this.tree.write(path, encodeFile(f.text, f.encoding), { onLink: "replace" });
    }
    this.written = new Set(program.keys());
  }
}
