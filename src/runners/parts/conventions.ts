/**
 * What a runner knows of a repository: how its files show the runner is used, the test conventions a
 * regression test follows (folder, file name, style, how to run one file), and the assertion and runner
 * objects the patch scan watches.
 */
// biome-ignore lint/suspicious/noEmptyInterface: members arrive as runner knowledge moves into the folders
export interface RunnerConventions {}
