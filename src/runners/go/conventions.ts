import type { RunnerConventions } from "../parts/conventions.ts";

export const conventions: RunnerConventions = {};
