import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `jest`. */
export const jest: Runner = { name: "jest", ...command, ...results, ...canaries, ...conventions };
