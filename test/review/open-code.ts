import { openCode } from "../../src/pipeline/open-code.ts";
import type { CodeTools } from "../../src/contract/pipeline.ts";

/** The pipeline's own code tools over one work tree, without a cache and parsed in this thread. */
export function openCodeFor(workdir: string): Promise<CodeTools> {
  return openCode(workdir, { cacheDir: null, workers: 0 });
}
