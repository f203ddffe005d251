import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `mocha`. */
export const mocha: Runner = { name: "mocha", ...command, ...results, ...canaries, ...conventions };
