import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `node --test`. */
export const nodeTest: Runner = { name: "node-test", ...command, ...results, ...canaries, ...conventions };
