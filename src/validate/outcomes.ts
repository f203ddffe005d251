export type { ParsedTests, TestOutcome } from "../runners/parts/results.ts";
export { filePart, MAX_FILES_PER_ID, put, putFile } from "../runners/shared/results-outcomes.ts";
