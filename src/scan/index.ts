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

import { languageForPath } from "../languages/index.ts";

/** Whether the scan reads a file of this name (a language it parses). */
export const isScannedPath = (path: string): boolean => languageForPath(path) !== null;
