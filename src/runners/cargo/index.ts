import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** `cargo test`. */
export const cargoTest: Runner = { name: "cargo", ...command, ...results, ...canaries, ...conventions };
