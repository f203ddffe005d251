import type { SearchPort } from "../agents/search-port.ts";
import type { CodeIndex } from "../index/code-index.ts";
import { formatLocationsForModel } from "../locate/format.ts";
import { type ResolvedLocation, resolveBugLocations } from "../locate/locate.ts";
import { API_SPECS, SearchApis, type SearchOptions } from "../search/search-api.ts";

/** What the search agent's port needs, built from one index: the APIs, location resolution, formatting. */
export interface IndexSearchPort extends SearchPort<ResolvedLocation> {
  readonly apis: SearchApis;
  /** Requests that resolved to nothing in the last `resolve()` call, with the reason. */
  lastUnresolved: { request: object; reason: string }[];
}

export function createSearchPort(index: CodeIndex, opts: SearchOptions = {}): IndexSearchPort {
  const apis = new SearchApis(index, opts);
  const port: IndexSearchPort = {
    specs: API_SPECS,
    apis,
    lastUnresolved: [],
    call: async (name, args) => {
      const r = await apis.call(name, args);
      return { ...r, matches: r.results };
    },
    resolve: async (requests) => {
      const locs = await resolveBugLocations(index, requests);
      port.lastUnresolved = locs.unresolved;
      return [...locs];
    },
    formatLocations: (locs) => formatLocationsForModel(locs),
  };
  return port;
}
