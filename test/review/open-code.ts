import { buildIndex } from "../../src/index/index.ts";
import { formatLocationsForModel } from "../../src/locate/format.ts";
import { type ResolvedLocation, resolveBugLocations } from "../../src/locate/locate.ts";
import {
  compareStatus,
  computePatch,
  createDiskRepo,
  PATCH_FORMAT_HELP,
  type PatchStatus,
} from "../../src/patch/index.ts";
import type { CodeTools } from "../../src/pipeline/types.ts";
import { API_SPECS, SearchApis } from "../../src/search/search-api.ts";

/** The pipeline's code tools over one work tree, built from the real index, search, locate and patch stages. */
export async function openCodeFor(workdir: string): Promise<CodeTools> {
  const index = await buildIndex(workdir, { cacheDir: null, workers: 0 });
  const apis = new SearchApis(index);
  const repo = createDiskRepo(workdir);
  return {
    search: {
      specs: API_SPECS,
      call: async (name, args) => {
        const r = await apis.call(name, args);
        return { ok: r.ok, text: r.text };
      },
      resolve: (requests) => resolveBugLocations(index, requests),
      formatLocations: (locs) => formatLocationsForModel(locs as unknown as ResolvedLocation[]),
    },
    engine: {
      formatHelp: PATCH_FORMAT_HELP,
      applicableStatus: "APPLICABLE_PATCH",
      apply: (answer) => computePatch(repo, answer),
      compare: (a, b) => compareStatus(a as PatchStatus, b as PatchStatus),
    },
    stats: {},
    notes: [],
  };
}
