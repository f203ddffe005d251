/**
 * What a runner knows of commands: which spellings start it, how its tests or files are named to it,
 * and the words that make it write a per-test report.
 */
// biome-ignore lint/suspicious/noEmptyInterface: members arrive as runner knowledge moves into the folders
export interface RunnerCommand {}
