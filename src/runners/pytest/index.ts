import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `pytest`. */
export const pytest: Runner = { name: "pytest", ...command, ...results, ...canaries, ...conventions };
