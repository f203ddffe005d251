import type { RunnerCommand } from "../parts/command.ts";

export const command: RunnerCommand = {};
