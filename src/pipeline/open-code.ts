import { buildIndex } from "../index/index.ts";
import { formatLocationsForModel } from "../locate/format.ts";
import { type ResolvedLocation, resolveBugLocations } from "../locate/locate.ts";
import {
  compareStatus,
  computePatch,
  createDiskRepo,
  isPatchStatus,
  PATCH_FORMAT_HELP,
  type PatchResult,
  writePatch,
} from "../patch/index.ts";
import { API_SPECS, SearchApis } from "../search/search-api.ts";
import { projectLine, projectVersion } from "../config/project-version.ts";
import type { CodeTools } from "../contract/pipeline.ts";
import { openTree } from "../core/tree-fs.ts";

export interface OpenCodeOptions {
  env?: NodeJS.ProcessEnv;
  /** Index cache folder (`null` disables it); default from AUTO_FIX_CACHE_DIR. */
  cacheDir?: string | null;
  /** Globs the patch may not touch (repository configuration), on top of the engine's own rules. */
  protectedGlobs?: string[];
  /** Parse worker threads (default: one per core; 0 parses in the calling thread). */
  workers?: number;
  /** Files found and indexed so far (a progress display). */
  onProgress?: (p: { found: number; done: number }) => void;
}

const rank = (s: string) => (isPatchStatus(s) ? s : "NO_PATCH");

/** Largest file a patch answer may ask lines of. */
const MAX_MORE_LINES_FILE = 4 * 1024 * 1024;

/**
 * Indexes a private work tree and builds the tools the agents use on it: the search APIs and bug-location
 * resolution (index/search/locate stages) and the patch engine bound to the same tree.
 */
export async function openCode(workdir: string, opts: OpenCodeOptions = {}): Promise<CodeTools> {
  const notes: string[] = [];
  const cacheDir = opts.cacheDir !== undefined ? opts.cacheDir : (opts.env?.AUTO_FIX_CACHE_DIR ?? undefined);
  const index = await buildIndex(workdir, {
    ...(cacheDir !== undefined ? { cacheDir } : {}),
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    onNote: (n) => notes.push(n),
  });
  // The first search comes after at least one model call: the name tables are made while it is awaited.
  // A failure there (none is expected) is met again, and reported, by the lookup that needs the tables.
  index.prepareLookups().catch(() => {});
  const apis = new SearchApis(index);
  const repo = createDiskRepo(workdir);
  const project = projectLine(projectVersion(workdir));
  return {
    search: {
      specs: API_SPECS,
      call: async (name, args) => {
        const r = await apis.call(name, args);
        return { ok: r.ok, text: r.text, matches: r.results };
      },
      resolve: (requests) => resolveBugLocations(index, requests),
      formatLocations: (locs) =>
        `${project ? `${project}\n\n` : ""}${formatLocationsForModel(locs as ResolvedLocation[])}`,
      project,
      focus: (text) => apis.noteText(text),
    },
    engine: {
      formatHelp: PATCH_FORMAT_HELP,
      applicableStatus: "APPLICABLE_PATCH",
      apply: (answer) =>
        computePatch(repo, answer, opts.protectedGlobs ? { protectedGlobs: opts.protectedGlobs } : {}),
      compare: (a, b) => compareStatus(rank(a), rank(b)),
      write: (result) => writePatch(workdir, result as PatchResult),
      // A patch answer's request for more lines: read through the tree's own checks (no link followed).
      readFile: (path) => openTree(workdir).read(path, { maxBytes: MAX_MORE_LINES_FILE }).toString("utf8"),
    },
    stats: { ...index.stats },
    notes,
  };
}
