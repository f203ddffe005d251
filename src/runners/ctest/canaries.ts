import type { RunnerCanaries } from "../parts/canaries.ts";

/**
 * No check tests are placed in CTest runs: a C++ test file is built only when the project's
 * CMakeLists.txt names it, and auto-fix does not edit the project's build files (a changed build file
 * would change what is built and tested). Every CTest run reads "could not check", with this why.
 */
export const canaries: RunnerCanaries = {
  canaries: {
    placed: false,
    why: "check tests are not placed for ctest runs (a C++ test file is built only when the project's CMakeLists.txt names it, and auto-fix does not edit build files)",
  },
};
