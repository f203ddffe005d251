import { cargoTest } from "./cargo/index.ts";
import { gradle, junit, maven } from "./junit/index.ts";
import { ctest } from "./ctest/index.ts";
import { goTest } from "./go/index.ts";
import { jest } from "./jest/index.ts";
import { mocha } from "./mocha/index.ts";
import { RUNNER_NAMES, type RunnerName } from "./names.ts";
import { nodeTest } from "./node-test/index.ts";
import { pytest } from "./pytest/index.ts";
import type { Runner } from "./types.ts";
import { unittest } from "./unittest/index.ts";
import { vitest } from "./vitest/index.ts";

/** Every runner auto-fix knows, by name: the one place that lists them. */
const REGISTRY: Readonly<Record<RunnerName, Runner>> = {
  pytest,
  unittest,
  "node-test": nodeTest,
  jest,
  vitest,
  mocha,
  go: goTest,
  maven,
  gradle,
  junit,
  ctest,
  cargo: cargoTest,
};

/** The runner called `name`. */
export function runnerFor(name: RunnerName): Runner {
  return REGISTRY[name];
}

/** Every runner, in the order of `RUNNER_NAMES` (the order recognition tries them in). */
export const RUNNERS: readonly Runner[] = RUNNER_NAMES.map((n) => REGISTRY[n]);
