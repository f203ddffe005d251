import type { RunnerName } from "./names.ts";
import type { RunnerCanaries } from "./parts/canaries.ts";
import type { RunnerCommand } from "./parts/command.ts";
import type { RunnerConventions } from "./parts/conventions.ts";
import type { RunnerResults } from "./parts/results.ts";

/**
 * One test runner: everything auto-fix knows of it, behind one interface. The rest of the house asks
 * the registry for a runner by name and talks to it only through these members; nothing outside
 * `src/runners/` decides by a runner's name.
 */
export interface Runner extends RunnerCommand, RunnerResults, RunnerCanaries, RunnerConventions {
  readonly name: RunnerName;
}
