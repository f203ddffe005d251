/**
 * `cargo test`'s human output (libtest's lines: stable Rust has no machine-readable test report). cargo
 * writes which test binary runs (`Running tests/slug.rs (target/debug/deps/slug-…)`) to stderr and each
 * binary's results to stdout as a block (`running 2 tests` … `test result: ok. 2 passed; …`): the
 * blocks are paired with the binaries in order. What a test prints is captured by libtest; a test that
 * writes past it (to its file descriptor) cannot make a block read as passing: a block whose result lines
 * disagree with its own summary's counts is read as a failure of its binary, and blocks that do not
 * match the binaries cargo names make the whole run one failure.
 */
import { type ParsedTests, put, type TestOutcome } from "../shared/results-outcomes.ts";
import { forEachLine, stripAnsi, trimEndLinear } from "../shared/results-text-scan.ts";

/** The entry of a test binary (or of the crate's build) as a whole: a failed one is a load failure. */
export const BINARY_ENTRY = "<binary>";
/** The entry of a build that failed before any test ran. */
export const BUILD_ENTRY = "<build>";

interface Block {
  declared: number;
  results: [string, TestOutcome][];
  summary: { passed: number; failed: number; ignored: number } | null;
}

const SUMMARY = /^test result: (?:ok|FAILED)\. (\d{1,9}) passed; (\d{1,9}) failed; (\d{1,9}) ignored;/;
const RUNNING = /^running (\d{1,9}) tests?$/;

/** `Running unittests src/lib.rs (…)` → `src/lib.rs`; `Running tests/a.rs (…)` → `tests/a.rs`; `Doc-tests x` → `doc x`. */
function binaryOf(line: string): string | null {
  const t = line.trimStart();
  if (t.startsWith("Doc-tests ")) {
    const name = t.slice(10).trim();
    return name && !name.includes(" ") ? `doc ${name}` : null;
  }
  if (!t.startsWith("Running ")) return null;
  let rest = t.slice(8);
  if (rest.startsWith("unittests ")) rest = rest.slice(10);
  const end = rest.indexOf(" ");
  const path = end < 0 ? rest : rest.slice(0, end);
  // cargo before 1.52 names the binary alone (`target/debug/deps/x-hash`).
  return path === "" ? null : path;
}

/** `test NAME ... ok|FAILED|ignored[, reason]`: the name and outcome, or null. */
function resultLine(line: string): [string, TestOutcome] | null {
  if (!line.startsWith("test ")) return null;
  const at = line.lastIndexOf(" ... ");
  if (at <= 5) return null;
  const name = line.slice(5, at);
  const word = line.slice(at + 5);
  const outcome: TestOutcome | null =
    word === "ok"
      ? "passed"
      : word === "FAILED"
        ? "failed"
        : word === "ignored" || word.startsWith("ignored, ")
          ? "skipped"
          : null;
  return outcome && name.trim() !== "" ? [name, outcome] : null;
}

/** Whether a block's result lines are the ones its own `running N tests` and summary count. */
function consistent(b: Block): boolean {
  if (!b.summary || b.results.length !== b.declared) return false;
  const n = (o: TestOutcome) => b.results.filter(([, x]) => x === o).length;
  return (
    n("passed") === b.summary.passed && n("failed") === b.summary.failed && n("skipped") === b.summary.ignored
  );
}

/** cargo test's blocks and binaries read from its output (stdout and stderr in either order). */
export function parseCargoTest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const binaries: string[] = [];
  const blocks: Block[] = [];
  let open: Block | null = null;
  let buildFailed = false;
  forEachLine(output, (raw) => {
    const line = trimEndLinear(stripAnsi(raw));
    const running = RUNNING.exec(line);
    if (running) {
      // A block that never reached its summary stays in the list unfinished (read as a failure).
      open = { declared: Number(running[1]), results: [], summary: null };
      blocks.push(open);
      return;
    }
    if (open) {
      const summary = SUMMARY.exec(line);
      if (summary) {
        open.summary = {
          passed: Number(summary[1]),
          failed: Number(summary[2]),
          ignored: Number(summary[3]),
        };
        open = null;
        return;
      }
      const r = resultLine(line);
      if (r) {
        open.results.push(r);
        return;
      }
    }
    const bin = binaryOf(line);
    if (bin) {
      // cargo's next binary (or, stdout first, its list on stderr after a stopped run): a block still
      // open stays unfinished.
      binaries.push(bin);
      open = null;
    } else if (open) return;
    else if (line.startsWith("error: could not compile ") || /^error\[E\d{4}\]/.test(line))
      buildFailed = true;
  });
  if (buildFailed) put(tests, BUILD_ENTRY, "failed");
  const paired = binaries.length === blocks.length;
  if (!paired && binaries.length > 0) {
    // The blocks do not match the binaries cargo ran: no block can be told apart from a forged one.
    put(tests, BINARY_ENTRY, "failed");
    return { parser: "cargo", tests };
  }
  blocks.forEach((b, i) => {
    const bin = paired ? binaries[i]! : `#${i + 1}`;
    if (!consistent(b)) {
      put(tests, `${bin}::${BINARY_ENTRY}`, "failed");
      return;
    }
    for (const [name, outcome] of b.results) put(tests, `${bin}::${name}`, outcome);
  });
  return { parser: "cargo", tests };
}
