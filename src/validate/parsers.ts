import type { TestFramework } from "../config/index.ts";

export type TestOutcome = "passed" | "failed" | "skipped";

/** Per-test outcomes read from a runner's output, keyed by a stable test id. */
export interface ParsedTests {
  parser: string;
  tests: Map<string, TestOutcome>;
}

const worse = (a: TestOutcome | undefined, b: TestOutcome): TestOutcome =>
  a === "failed" || b === "failed" ? "failed" : a === "passed" || b === "passed" ? "passed" : b;

function put(map: Map<string, TestOutcome>, id: string, outcome: TestOutcome): void {
  map.set(id, worse(map.get(id), outcome));
}

const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");

/** pytest: the `-rA` short summary (`PASSED path::test`) and `-v` lines (`path::test PASSED`). */
export function parsePytest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const map: Record<string, TestOutcome> = {
    PASSED: "passed",
    XPASS: "passed",
    FAILED: "failed",
    ERROR: "failed",
    XFAIL: "skipped",
    SKIPPED: "skipped",
  };
  for (const raw of stripAnsi(output).split("\n")) {
    const line = raw.trimEnd();
    let m = /^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+::\S.*?)(?: - .*)?$/.exec(line);
    if (m) {
      put(tests, m[2]!, map[m[1]!]!);
      continue;
    }
    // A collection error names a file, not a test.
    m = /^ERROR (\S+\.py)(?: - .*)?$/.exec(line);
    if (m) {
      put(tests, `${m[1]!}::<collection>`, "failed");
      continue;
    }
    m = /^(\S+::\S+(?:\[.*?\])?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/.exec(line);
    if (m) put(tests, m[1]!, map[m[2]!]!);
  }
  return { parser: "pytest", tests };
}

/** unittest `-v`: `test_a (module.Class.test_a) ... ok|FAIL|ERROR|skipped`. */
export function parseUnittest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  for (const line of output.split("\n")) {
    const m =
      /^(\w+) \(([\w.]+)\)(?:\n.*)? \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)/.exec(
        line,
      );
    if (!m) continue;
    const dotted = m[2]!.endsWith(`.${m[1]}`) ? m[2]! : `${m[2]}.${m[1]}`;
    const o = m[3]!;
    put(
      tests,
      dotted,
      o === "ok" || o === "unexpected success"
        ? "passed"
        : o === "FAIL" || o === "ERROR"
          ? "failed"
          : "skipped",
    );
  }
  return { parser: "unittest", tests };
}

/**
 * Reporters that mark each test with a symbol, nested by indentation: node's spec reporter, jest and
 * vitest (verbose), mocha. Names are qualified by their enclosing suites and file headers.
 */
export function parseSymbolReporter(output: string, parser = "spec"): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const stack: { indent: number; name: string }[] = [];
  let file = "";
  for (const raw of stripAnsi(output).split("\n")) {
    if (/^\s*(✖ failing tests:|\d+ failing$|Summary of all failing tests|Failed Tests \d+)/.test(raw)) break;
    const line = raw.replace(/\s+$/, "");
    const header = /^(?:PASS|FAIL) +(\S+)/.exec(line);
    if (header) {
      file = header[1]!;
      stack.length = 0;
      continue;
    }
    const m = /^(\s*)(✔|✓|√|✖|✕|×|﹣|○|↓|-|▶|❯|\d+\)) (.+)$/.exec(line);
    if (!m) {
      // jest and mocha print a describe block as a bare indented title.
      const title = /^(\s+)([A-Za-z_][^:]*)$/.exec(line);
      if (title && !/^(at |ℹ|Tests?:|Suites?:|Time:|Snapshots:)/.test(title[2]!)) {
        const indent = title[1]!.length;
        while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
        stack.push({ indent, name: title[2]!.trim() });
      }
      continue;
    }
    const indent = m[1]!.length;
    const sym = m[2]!;
    let name = m[3]!
      .replace(/\s+#\s*(SKIP|TODO).*$/, "")
      .replace(/\s+\(\d+(\.\d+)?\s*m?s\)$/, "")
      .replace(/\s+\d+(\.\d+)?\s*m?s$/, "")
      .trim();
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    if (sym === "▶" || sym === "❯") {
      stack.push({ indent, name: name.replace(/\s+\(\d+ tests?.*\)$/, "") });
      continue;
    }
    if (sym === "-" && !/#\s*SKIP|pending/i.test(m[3]!)) continue;
    if (/^\S+\.(?:[cm]?[jt]sx?) \(\d+ tests?/.test(name)) continue; // a file summary line
    name = [file, ...stack.map((s) => s.name), name].filter((p) => p !== "").join(" > ");
    const outcome: TestOutcome =
      sym === "✔" || sym === "✓" || sym === "√"
        ? "passed"
        : sym === "﹣" || sym === "○" || sym === "↓" || sym === "-"
          ? "skipped"
          : "failed";
    put(tests, name, outcome);
  }
  return { parser, tests };
}

/** TAP (node --test --test-reporter=tap and others): `ok N - name` / `not ok N - name`, nested by indentation. */
export function parseTap(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const pending: { indent: number; name: string }[] = [];
  for (const line of output.split("\n")) {
    const sub = /^(\s*)# Subtest: (.+)$/.exec(line);
    if (sub) {
      const indent = sub[1]!.length;
      while (pending.length > 0 && pending[pending.length - 1]!.indent >= indent) pending.pop();
      pending.push({ indent, name: sub[2]! });
      continue;
    }
    const m = /^(\s*)(not ok|ok) \d+(?: - ([^#]*))?(#\s*(SKIP|TODO).*)?$/i.exec(line);
    if (!m) continue;
    const indent = m[1]!.length;
    while (pending.length > 0 && pending[pending.length - 1]!.indent > indent) pending.pop();
    const parents = pending.filter((p) => p.indent < indent).map((p) => p.name);
    const name = [...parents, (m[3] ?? "").trim()].join(" > ");
    if (pending.length > 0 && pending[pending.length - 1]!.indent === indent) pending.pop();
    put(tests, name, m[4] ? "skipped" : m[2] === "ok" ? "passed" : "failed");
  }
  return { parser: "tap", tests };
}

/** `go test -json` events, or `go test -v` text (`--- PASS: TestX`, qualified by the package line). */
export function parseGoTest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  let sawJson = false;
  const textPending: [string, TestOutcome][] = [];
  for (const line of output.split("\n")) {
    if (line.startsWith("{")) {
      try {
        const ev = JSON.parse(line) as { Action?: string; Package?: string; Test?: string };
        sawJson = true;
        if (ev.Test && (ev.Action === "pass" || ev.Action === "fail" || ev.Action === "skip")) {
          put(
            tests,
            `${ev.Package ?? ""}.${ev.Test}`,
            ev.Action === "pass" ? "passed" : ev.Action === "fail" ? "failed" : "skipped",
          );
        } else if (!ev.Test && ev.Action === "fail" && ev.Package) {
          put(tests, `${ev.Package}.<package>`, "failed");
        }
        continue;
      } catch {
        // not a JSON event
      }
    }
    const m = /^\s*--- (PASS|FAIL|SKIP): (\S+)/.exec(line);
    if (m) {
      textPending.push([m[2]!, m[1] === "PASS" ? "passed" : m[1] === "FAIL" ? "failed" : "skipped"]);
      continue;
    }
    const pkg = /^(ok|FAIL|---)\s+(\S+)\s/.exec(line);
    if (pkg && pkg[1] !== "---") {
      for (const [t, o] of textPending.splice(0)) put(tests, `${pkg[2]}.${t}`, o);
    }
  }
  for (const [t, o] of textPending) put(tests, t, o);
  return { parser: sawJson ? "go-json" : "go", tests };
}

const decodeXml = (s: string): string =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");

/** JUnit XML (surefire, gradle, pytest --junitxml, jest-junit): every `<testcase>` and its outcome. */
export function parseJUnitXml(xml: string, into: Map<string, TestOutcome> = new Map()): ParsedTests {
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of xml.matchAll(re)) {
    const attrs = m[1]!;
    const attr = (name: string): string =>
      decodeXml(new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? "");
    const body = m[3] ?? "";
    const id = [attr("classname"), attr("name")].filter(Boolean).join(".");
    const outcome: TestOutcome = /<(failure|error)\b/.test(body)
      ? "failed"
      : /<skipped\b/.test(body)
        ? "skipped"
        : "passed";
    put(into, id, outcome);
  }
  return { parser: "junit-xml", tests: into };
}

/** Reads per-test results from a run's output with the parser for its framework; null when none fits. */
export function parseTestOutput(
  framework: TestFramework,
  stdout: string,
  stderr: string,
): ParsedTests | null {
  const text = `${stdout}\n${stderr}`;
  const attempts: (() => ParsedTests)[] = [];
  switch (framework) {
    case "pytest":
      attempts.push(() => parsePytest(text));
      break;
    case "unittest":
      attempts.push(() => parseUnittest(text));
      break;
    case "go":
      attempts.push(() => parseGoTest(text));
      break;
    case "node-test":
    case "jest":
    case "vitest":
    case "mocha":
    case "npm":
      attempts.push(
        () => parseSymbolReporter(text, framework),
        () => parseTap(text),
      );
      break;
    default:
      attempts.push(
        () => parsePytest(text),
        () => parseUnittest(text),
        () => parseGoTest(text),
        () => parseSymbolReporter(text),
        () => parseTap(text),
      );
  }
  for (const attempt of attempts) {
    const r = attempt();
    if (r.tests.size > 0) return r;
  }
  return null;
}
