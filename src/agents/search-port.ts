import type { ApiSpecLike } from "./api-call.ts";
import type { LocationRequest } from "./proxy-agent.ts";

/** A bug location resolved to a real code unit (what `locate` returns, reduced to what agents use). */
export interface ResolvedLocationLike {
  file: string;
  start: number;
  end: number;
  class?: string | null;
  method?: string | null;
  intendedBehavior?: string | null;
}

/** What resolving gives: the code units found, and why a request matched nothing (when known). */
export type Resolution<L> = L[] & { unresolved?: readonly { reason: string }[] };

export interface SearchCallResult {
  ok: boolean;
  /** Exactly what the model sees. */
  text: string;
  /** Where the code shown is (1-based, inclusive lines), when the port knows. */
  matches?: readonly { file: string; start: number; end: number }[];
}

/**
 * What the search agent needs from the code index: the API list, running one call, and resolving the
 * locations the model named. The pipeline builds it from the index, search and locate stages.
 */
export interface SearchPort<L extends ResolvedLocationLike = ResolvedLocationLike> {
  readonly specs: readonly ApiSpecLike[];
  call(name: string, args: string[]): SearchCallResult | Promise<SearchCallResult>;
  resolve(requests: LocationRequest[]): Resolution<L> | Promise<Resolution<L>>;
  /** The resolved locations with their code, as the patch writer shows them to the model. */
  formatLocations(locations: L[]): string;
  /** The project's name and version from its manifest, one line for the prompts ("" when unknown). */
  project?: string;
  /** Files this text (the issue, the reproducer's output) names come first in search results. */
  focus?(text: string): void;
}
