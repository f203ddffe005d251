import type { RunnerCanaries } from "../parts/canaries.ts";

export const canaries: RunnerCanaries = {};
