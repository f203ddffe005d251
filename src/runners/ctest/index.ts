import type { Runner } from "../types.ts";
import { canaries } from "./canaries.ts";
import { command } from "./command.ts";
import { conventions } from "./conventions.ts";
import { results } from "./results.ts";

/** CTest (CMake's test driver), GoogleTest tests included as `gtest_discover_tests` registers them. */
export const ctest: Runner = { name: "ctest", ...command, ...results, ...canaries, ...conventions };
