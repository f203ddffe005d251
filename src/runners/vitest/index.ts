import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `vitest`. */
export const vitest: Runner = { name: "vitest", ...command, ...results, ...canaries, ...conventions };
