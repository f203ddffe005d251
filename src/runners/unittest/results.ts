import type { FailureBlock, RunnerResults } from "../parts/results.ts";
import { parseUnittest } from "./results-output.ts";

/** unittest's stand-ins for a module it could not import or load. */
const LOADER = /^unittest\.loader\.(?:_FailedTest|ModuleImportFailure)\./;

/** A failure's block as unittest `-v` prints it: `ERROR: test_get (tests.test_api.Api.test_get)`. */
export function failureBlock(line: string): FailureBlock | null {
  const ut = /^(?:ERROR|FAIL): (\S{1,300}) \((\S{1,500})\)/.exec(line);
  if (!ut) return null;
  const [, name, where] = ut;
  return { owns: (x) => x === where || x === `${where}.${name}`, reason: null };
}

/**
 * unittest's verbose output. Run one module after the other (as auto-fix runs it), its output tells
 * which file a stopped run was in.
 */
export const results: RunnerResults = {
  parseOutput: (output) => {
    const r = parseUnittest(output);
    return r.tests.size > 0 ? r : null;
  },
  loadedName: (id) => (LOADER.test(id) ? id.replace(LOADER, "") : null),
  tellsStoppedFile: true,
  reportStream: "stderr",
  failureBlock,
  failureReport: { header: /^(?:FAIL:|ERROR:|={3,})/, boundary: /^(?:FAIL:|ERROR:|={3,})/ },
};
