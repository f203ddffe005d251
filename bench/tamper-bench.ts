/**
 * The added cost of tamper evidence (canary tests, see src/validate/canaries.ts) per validation run: the
 * same real test runs in the real sandbox with and without canaries, paired and alternated (which of the
 * two goes first changes every round), several rounds per runner. Printed per runner: the run's median
 * time without canaries and the added seconds per run (median, min, max of the paired differences).
 *
 *   npm run bench:tamper [-- --rounds 7 --runners pytest,unittest,go,mocha,node-test]
 *
 * Each repository is small (a few test files of a few tests), so the run's fixed cost is what dominates
 * and the added cost shows plainly: writing two files, the runner collecting and running two more tests
 * (for go: compiling one more file into each tested package's test binary), reading the proof back.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { loadRepoConfig } from "../src/config/index.ts";
import { createSandbox } from "../src/sandbox/index.ts";
import { runTestSuite } from "../src/validate/index.ts";
import { installRunner } from "../test/validate/support/js-runner.ts";
import { tempDir } from "../test/support/temp.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    runners: { type: "string", default: "pytest,unittest,go,mocha,node-test" },
  },
});
const ROUNDS = Number(values.rounds);
const RUNNERS = values.runners!.split(",");

function repo(files: Record<string, string>): string {
  const dir = tempDir("af-tamper-bench-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const FILES = 6;
const TESTS = 5;

const REPOS: Record<string, () => string> = {
  pytest: () =>
    repo({
      "pytest.ini": "[pytest]\n",
      "calc/__init__.py": "def add(a, b):\n    return a + b\n",
      ...Object.fromEntries(
        range(FILES).map((f) => [
          `tests/test_m${f}.py`,
          `from calc import add\n\n${range(TESTS)
            .map((t) => `def test_${t}():\n    assert add(${t}, ${f}) == ${t + f}\n`)
            .join("\n")}`,
        ]),
      ),
    }),
  unittest: () =>
    repo({
      "calc/__init__.py": "def add(a, b):\n    return a + b\n",
      "tests/__init__.py": "",
      ...Object.fromEntries(
        range(FILES).map((f) => [
          `tests/test_m${f}.py`,
          `import unittest\n\nfrom calc import add\n\n\nclass M${f}(unittest.TestCase):\n${range(TESTS)
            .map((t) => `    def test_${t}(self):\n        self.assertEqual(add(${t}, ${f}), ${t + f})\n`)
            .join("\n")}`,
        ]),
      ),
    }),
  go: () =>
    repo({
      "go.mod": "module example.com/calc\n\ngo 1.19\n",
      ...Object.fromEntries(
        range(3).flatMap((p) => [
          [`p${p}/p.go`, `package p${p}\n\nfunc Add(a, b int) int { return a + b }\n`],
          [
            `p${p}/p_test.go`,
            `package p${p}\n\nimport "testing"\n\n${range(TESTS)
              .map(
                (t) =>
                  `func Test${t}(t *testing.T) {\n\tif Add(${t}, ${p}) != ${t + p} {\n\t\tt.Fatal("add")\n\t}\n}\n`,
              )
              .join("\n")}`,
          ],
        ]),
      ),
    }),
  mocha: () => {
    const dir = repo({
      "package.json": JSON.stringify({ name: "calc", private: true }),
      ".github/auto-fix.yml": "test: npx mocha test\n",
      "src/calc.js": "exports.add = (a, b) => a + b;\n",
      ...Object.fromEntries(
        range(FILES).map((f) => [
          `test/m${f}.test.js`,
          `const assert = require("node:assert");\nconst { add } = require("../src/calc.js");\ndescribe("m${f}", () => {\n${range(
            TESTS,
          )
            .map((t) => `  it("t${t}", () => assert.equal(add(${t}, ${f}), ${t + f}));\n`)
            .join("")}});\n`,
        ]),
      ),
    });
    installRunner(dir, "mocha");
    return dir;
  },
  "node-test": () =>
    repo({
      "package.json": JSON.stringify({ name: "calc", private: true }),
      ".github/auto-fix.yml": "test: node --test\n",
      "src/calc.js": "exports.add = (a, b) => a + b;\n",
      ...Object.fromEntries(
        range(FILES).map((f) => [
          `test/m${f}.test.js`,
          `const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../src/calc.js");\n${range(
            TESTS,
          )
            .map((t) => `test("m${f} t${t}", () => assert.equal(add(${t}, ${f}), ${t + f}));\n`)
            .join("")}`,
        ]),
      ),
    }),
};

const has = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

const sandbox = await createSandbox("bwrap");
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sec = (ms: number): string => `${(ms / 1000).toFixed(3)}`;

console.log(
  `tamper-evidence cost per run: ${ROUNDS} rounds per runner, paired and alternated; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
);
console.log("runner      tests  without(median s)  added s: median    min      max   integrity");
for (const runner of RUNNERS) {
  const make = REPOS[runner];
  if (!make) throw new Error(`unknown runner ${runner}`);
  if (runner === "go" && !has("go", ["version"])) {
    console.log(`${runner.padEnd(10)}  go is not installed: skipped`);
    continue;
  }
  const dir = make();
  const config = loadRepoConfig(dir);
  const once = async (canaries: boolean) => {
    const t0 = performance.now();
    const r = await runTestSuite(sandbox, dir, config, undefined, { canaries });
    const ms = performance.now() - t0;
    if (!r || r.failed > 0 || r.passed === 0)
      throw new Error(`${runner}: the run failed: ${r?.exec.stderr.slice(-2000)}`);
    return { ms, r };
  };
  // Warm-up: caches (Python's compiled modules, Go's build cache) as a later run of the job finds them.
  await once(false);
  await once(true);
  const added: number[] = [];
  const base: number[] = [];
  const states = new Set<string>();
  let tests = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const withFirst = i % 2 === 0;
    const a = await once(withFirst);
    const b = await once(!withFirst);
    const [w, wo] = withFirst ? [a, b] : [b, a];
    added.push(w.ms - wo.ms);
    base.push(wo.ms);
    states.add(w.r.integrity?.state ?? "none");
    tests = wo.r.passed;
    if (w.r.passed !== wo.r.passed) throw new Error(`${runner}: the canaries changed the count of tests`);
  }
  console.log(
    `${runner.padEnd(10)}  ${String(tests).padStart(5)}  ${sec(median(base)).padStart(17)}  ${sec(median(added)).padStart(15)}  ${sec(Math.min(...added)).padStart(7)}  ${sec(Math.max(...added)).padStart(7)}   ${[...states].join(",")}`,
  );
}

// The patch scan (src/scan) runs once per candidate before its evidence counts: its cost on a file of
// the repositories above and on a large real module, parsed before and after a one-line patch.
{
  const { scanFileChange } = await import("../src/scan/index.ts");
  const big = ["/usr/lib/python3.11/argparse.py", "/usr/lib/python3.12/argparse.py"].find((p) =>
    existsSync(p),
  );
  const cases: [string, string][] = [["calc/__init__.py", "def add(a, b):\n    return a - b\n"]];
  if (big) cases.push(["argparse.py", readFileSync(big, "utf8")]);
  const parts: string[] = [];
  for (const [name, text] of cases) {
    const after = text.replace(/\n/, "\n# a one-line patch\nX = 1\n");
    await scanFileChange(name, text, after);
    const ms: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      await scanFileChange(name, text, after);
      ms.push(performance.now() - t0);
    }
    parts.push(`${name} (${text.split("\n").length} lines) ${sec(median(ms))} s`);
  }
  console.log(`patch scan per candidate (median of ${ROUNDS}): ${parts.join("; ")}`);
}
