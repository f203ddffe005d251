import type { RunnerResults } from "../parts/results.ts";
import { BINARY_ENTRY, BUILD_ENTRY, parseCargoTest } from "./results-output.ts";

const SUFFIX = `::${BINARY_ENTRY}`;

/** Why no test ran when cargo itself is missing or a dependency needs the network, or null. */
function missingRunner(output: string): string | null {
  if (
    /(^|\n)(sh: \d+: )?cargo: (command )?not found|exec: "?cargo"?: not found|cargo: No such file/.test(
      output,
    )
  )
    return "cargo is not installed where the tests run (the sandbox's PATH is /usr/bin: Debian's `cargo` and `rustc` packages)";
  const offline =
    /(?:no matching package named `([^`\n]{1,200})` found|failed to get `([^`\n]{1,200})` as a dependency)/.exec(
      output,
    );
  if (offline && /offline/.test(output))
    return `the crate needs \`${offline[1] ?? offline[2]}\` from the network, and tests build offline (--offline): vendor the crate's dependencies (\`cargo vendor\`) or use Debian-packaged ones`;
  return null;
}

/** cargo test's per-binary blocks of libtest lines. */
export const results: RunnerResults = {
  parseOutput: (output) => {
    const r = parseCargoTest(output);
    return r.tests.size > 0 ? r : null;
  },
  loadedName: (id) =>
    id === BUILD_ENTRY
      ? "the crate's build"
      : id === BINARY_ENTRY
        ? "the run's test binaries"
        : id.endsWith(SUFFIX)
          ? id.slice(0, -SUFFIX.length)
          : null,
  tellsStoppedFile: false,
  // libtest reports failures after all of a binary's tests ran: `---- name stdout ----` blocks.
  failureReport: {
    header: /^---- .+ stdout ----$/,
    boundary: /^(---- .+ stdout ----|failures:$|test result: )/,
  },
  missingRunner,
};
