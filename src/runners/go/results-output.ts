import { type ParsedTests, put, type TestOutcome } from "../shared/results-outcomes.ts";
import {
  forEachLine,
  isSpace,
  nextSpace,
  skipSpaces,
  statusAt,
  trimEndLinear,
} from "../shared/results-text-scan.ts";

/** Lines starting with `{` that fail to parse as JSON before the go parser stops trying. */
const MAX_BAD_JSON_LINES = 1000;

/** `go test -json` events, or `go test -v` text (`--- PASS: TestX`, qualified by the package line). */
export function parseGoTest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  let sawJson = false;
  const textPending: [string, TestOutcome][] = [];
  // `go test -json` writes only valid events: after a few lines that are not, stop trying (a failed
  // JSON.parse throws, which costs microseconds per line).
  let badJson = 0;
  forEachLine(output, (line) => {
    if (line.startsWith("{") && badJson < MAX_BAD_JSON_LINES) {
      try {
        const ev = JSON.parse(line) as { Action?: unknown; Package?: unknown; Test?: unknown };
        if (typeof ev?.Action !== "string") return;
        sawJson = true;
        const pkg = typeof ev.Package === "string" ? ev.Package : "";
        const action = ev.Action;
        if (typeof ev.Test === "string" && ev.Test !== "") {
          if (action === "pass" || action === "fail" || action === "skip") {
            put(
              tests,
              `${pkg}.${ev.Test}`,
              action === "pass" ? "passed" : action === "fail" ? "failed" : "skipped",
            );
          }
        } else if (action === "fail" && pkg) put(tests, `${pkg}.<package>`, "failed");
        return;
      } catch {
        badJson++;
      }
    }
    const at = skipSpaces(line);
    if (line.startsWith("--- ", at)) {
      const word = statusAt(line, at + 4, ["PASS", "FAIL", "SKIP"]);
      if (word && line[at + 8] === ":" && line[at + 9] === " " && !isSpace(line[at + 10])) {
        const name = line.slice(at + 10, nextSpace(line, at + 10));
        if (name !== "") {
          textPending.push([name, word === "PASS" ? "passed" : word === "FAIL" ? "failed" : "skipped"]);
          return;
        }
      }
    }
    const head = line.startsWith("ok") ? 2 : line.startsWith("FAIL") ? 4 : 0;
    if (head > 0 && isSpace(line[head])) {
      const start = skipSpaces(line, head);
      const end = nextSpace(line, start);
      if (end > start && end < line.length) {
        const pkg = line.slice(start, end);
        for (const [t, o] of textPending.splice(0)) put(tests, `${pkg}.${t}`, o);
        // `FAIL\tpkg [build failed]` (or `[setup failed]`): go before 1.24 writes it as text even
        // under -json; the package's tests never ran.
        const why = trimEndLinear(line.slice(skipSpaces(line, end)));
        if (head === 4 && (why === "[build failed]" || why === "[setup failed]"))
          put(tests, `${pkg}.<package>`, "failed");
      }
    }
  });
  for (const [t, o] of textPending) put(tests, t, o);
  return { parser: sawJson ? "go-json" : "go", tests };
}
