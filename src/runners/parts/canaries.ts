/** What a runner knows of the check tests added to a run: where they go and what proves they ran. */
// biome-ignore lint/suspicious/noEmptyInterface: members arrive as runner knowledge moves into the folders
export interface RunnerCanaries {}
