import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `go test`. */
export const goTest: Runner = { name: "go", ...command, ...results, ...canaries, ...conventions };
