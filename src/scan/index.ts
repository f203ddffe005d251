export {
  describeFinding,
  type PatchFinding,
  type PatchScan,
  scanDiff,
  scanFileChange,
  scanNewFile,
  sharedLiterals,
} from "./scan-diff.ts";
export { type FindingKind, KIND_WORDS } from "./rules.ts";

import { languageForPath, languageOf } from "../languages/index.ts";

/** Whether the scan reads a file of this name (a language it has rules for). */
export const isScannedPath = (path: string): boolean => {
  const lang = languageForPath(path);
  return lang !== null && languageOf(lang).scanFamily !== null;
};
