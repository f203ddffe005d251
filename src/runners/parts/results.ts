/**
 * What a runner knows of its output: per-test results from its report file or its ordinary human
 * output, which file a stopped run was in, load failures, network failures and skips.
 */
// biome-ignore lint/suspicious/noEmptyInterface: members arrive as runner knowledge moves into the folders
export interface RunnerResults {}
