import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `unittest`. */
export const unittest: Runner = { name: "unittest", ...command, ...results, ...canaries, ...conventions };
