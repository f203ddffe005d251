/**
 * How a script ended, per runtime, as the runtime reports it: Python and Node through the launcher in the
 * real bubblewrap sandbox (record, lines that ran, exit status kept), Go and Java from the toolchain's
 * output structure.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type ExecResult, type SandboxPort } from "../../src/sandbox/index.ts";
import { goEnding, javaEnding, launchedCommand, runScript } from "../../src/sandbox/script-run.ts";
import { tempDir } from "../support/temp.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(() => {});

const tree = (files: Record<string, string>): string => {
  const dir = tempDir("auto-fix-script-run-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
};

const run = (
  dir: string,
  runtime: string,
  file: string,
  command = `${runtime === "python" ? "python3" : "node"} ${file}`,
) =>
  runScript(sandbox, {
    workdir: dir,
    runtime,
    command,
    file,
    timeoutMs: 60_000,
    memoryMb: 1024,
    maxProcesses: 64,
  });

const CALC = "X = 1\n\n\ndef add(a, b):\n    if a < 0:\n        return 0\n    return a - b\n";

test("python: an assertion, a parse failure, an import failure, a handled import failure, an exit and a pass", async () => {
  const dir = tree({ "calc/__init__.py": "", "calc/ops.py": CALC });
  const cases: [string, (r: Awaited<ReturnType<typeof run>>) => void][] = [
    [
      "from calc.ops import add\nassert add(2, 3) == 5, 'expected 5'\n",
      (r) => {
        assert.equal(r.exec.exitCode, 1);
        assert.match(
          r.exec.stderr,
          /File "reproducer\.py", line 2, in <module>\n[\s\S]*AssertionError: expected 5/,
        );
        assert.doesNotMatch(r.exec.stderr, /\.af-/, "the launcher is not in the traceback");
        assert.deepEqual(
          { how: r.ending.how, type: r.ending.type, assertion: r.ending.assertion },
          {
            how: "exception",
            type: "AssertionError",
            assertion: true,
          },
        );
        // Lines 5 and 7 ran inside add; the module's top level (lines 1, 4) is left out.
        assert.deepEqual(r.trace, { "calc/ops.py": [5, 7] });
      },
    ],
    [
      "x = 1\nassert x == 2, AssertionError('never'\n",
      (r) => {
        assert.equal(r.exec.exitCode, 1);
        assert.match(r.exec.stderr, /AssertionError\('never'/, "the echoed line names it");
        assert.equal(r.ending.how, "does-not-parse");
        assert.equal(r.ending.type, "SyntaxError");
        assert.equal(r.ending.line, 2);
      },
    ],
    [
      "from calc.ops import helper\n",
      (r) => {
        assert.equal(r.ending.how, "does-not-import");
        assert.equal(r.ending.type, "ImportError");
      },
    ],
    [
      "try:\n    import calc.nothing\nexcept ImportError:\n    raise AssertionError('missing')\n",
      (r) => {
        assert.equal(r.ending.how, "exception");
        assert.equal(r.ending.assertion, true);
        assert.deepEqual(r.ending.chain, ["ModuleNotFoundError"]);
      },
    ],
    [
      "import sys\nsys.stderr.write('AssertionError: x\\n')\nsys.exit(3)\n",
      (r) => {
        assert.equal(r.exec.exitCode, 3);
        assert.equal(r.ending.how, "exit");
        assert.equal(r.ending.type, null);
      },
    ],
    [
      "class AssertionError(Exception):\n    pass\nraise AssertionError('look-alike')\n",
      (r) => {
        assert.equal(r.ending.type, "__main__.AssertionError", "the type is named with its module");
        assert.equal(r.ending.assertion, false);
      },
    ],
    [
      "from calc.ops import add\nprint(add(-1, 0))\n",
      (r) => {
        assert.equal(r.exec.exitCode, 0);
        assert.equal(r.exec.stdout, "0\n");
        assert.equal(r.ending.how, "exit");
        assert.deepEqual(r.trace, { "calc/ops.py": [5, 6] });
      },
    ],
  ];
  for (const [script, check] of cases) {
    writeFileSync(join(dir, "reproducer.py"), script);
    const r = await run(dir, "python", "reproducer.py");
    assert.equal(r.told, "record");
    check(r);
  }
  // Nothing of the launcher is left in the tree.
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith(".af-")),
    [],
  );
});

test("python: a script that ends its process before the launcher can record is 'unknown', never reproduced", async () => {
  const dir = tree({
    "reproducer.py": "import os, sys\nsys.stderr.write('AssertionError: x\\n')\nos._exit(1)\n",
  });
  const r = await run(dir, "python", "reproducer.py");
  assert.equal(r.ending.how, "unknown");
  assert.match(r.ending.detail ?? "", /left no record/);
});

test("a custom command is run as it is and its ending is left to its output", async () => {
  const dir = tree({ "reproducer.py": "assert False\n" });
  const r = await run(dir, "python", "reproducer.py", "python3 -X dev reproducer.py");
  assert.equal(r.told, "output");
  assert.equal(r.ending.how, "unknown");
  assert.equal(r.trace, null);
  assert.match(r.exec.stderr, /AssertionError/);
});

const SLUG = 'export function slug(s) {\n  if (!s) {\n    return "";\n  }\n  return s.toLowerCase();\n}\n';

test("node: an assertion with the lines it ran, a parse failure, a missing export, a rejection", async () => {
  const dir = tree({ "src/slug.js": SLUG, "package.json": '{"type":"module"}' });
  const cases: [string, (r: Awaited<ReturnType<typeof run>>) => void][] = [
    [
      'import assert from "node:assert/strict";\nimport { slug } from "./src/slug.js";\nassert.equal(slug("A"), "b");\n',
      (r) => {
        assert.equal(r.exec.exitCode, 1);
        assert.equal(r.ending.how, "exception");
        assert.equal(r.ending.type, "AssertionError");
        assert.equal(r.ending.assertion, true);
        // The if's block (lines 3-4) did not run.
        assert.deepEqual(r.trace, { "src/slug.js": [2, 5, 6] });
      },
    ],
    [
      "const x = ;\n// AssertionError\n",
      (r) => {
        assert.equal(r.ending.how, "does-not-parse");
        assert.equal(r.ending.line, 1);
      },
    ],
    [
      'import { nope } from "./src/slug.js";\n',
      (r) => {
        assert.equal(r.ending.how, "does-not-import");
        assert.match(r.ending.message, /does not provide an export named 'nope'/);
      },
    ],
    [
      'await Promise.reject(Object.assign(new Error("x"), { name: "AssertionError" }));\n',
      (r) => {
        assert.equal(r.ending.how, "exception");
        assert.equal(r.ending.type, "AssertionError");
        assert.equal(r.ending.assertion, false, "named like one, not node:assert's");
      },
    ],
    [
      'console.error("AssertionError [ERR_ASSERTION]: x");\nprocess.exit(1);\n',
      (r) => {
        assert.equal(r.ending.how, "exit");
        assert.equal(r.exec.exitCode, 1);
      },
    ],
  ];
  for (const [script, check] of cases) {
    writeFileSync(join(dir, "reproducer.mjs"), script);
    const r = await run(dir, "node", "reproducer.mjs");
    assert.equal(r.told, "record");
    check(r);
  }
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith(".af-")),
    [],
  );
});

test("the launcher wraps only the runtime's plain command", () => {
  assert.equal(
    launchedCommand("python", "python3 reproducer.py", "reproducer.py", ".af-x.py", ".af-x-r.json"),
    "python3 .af-x.py .af-x-r.json reproducer.py",
  );
  assert.equal(
    launchedCommand("node", "node reproducer.mjs", "reproducer.mjs", ".af-x.mjs", ".af-x.json"),
    "node --import ./.af-x.mjs reproducer.mjs",
  );
  assert.equal(launchedCommand("python", "pytest reproducer.py", "reproducer.py", "l", "r"), null);
  assert.equal(launchedCommand("python", "python3 reproducer.py; true", "reproducer.py", "l", "r"), null);
  assert.equal(
    launchedCommand("go", "go run ./autofix_reproducer", "autofix_reproducer/main.go", "l", "r"),
    null,
  );
});

const exec = (stderr: string, exitCode = 1): ExecResult => ({
  exitCode,
  signal: null,
  stdout: "",
  stderr,
  truncated: false,
  limit: null,
  durationMs: 1,
  backend: "bwrap",
});

test("go: a panic with its goroutine trace, a build failure, an undefined symbol", () => {
  const panic = goEnding(
    exec(
      "panic: AssertionError: expected 5, got -1\n\ngoroutine 1 [running]:\nmain.main()\n\t/workspace/autofix_reproducer/main.go:9 +0x1d\nexit status 2\n",
    ),
  );
  assert.deepEqual(
    { how: panic.how, type: panic.type, assertion: panic.assertion, message: panic.message },
    { how: "exception", type: "panic", assertion: true, message: "AssertionError: expected 5, got -1" },
  );
  // The word in a build error's echoed source is not a panic.
  const build = goEnding(
    exec(
      '# example.com/q/autofix_reproducer\nautofix_reproducer/main.go:7:2: syntax error: unexpected panic("AssertionError")\n',
    ),
  );
  assert.equal(build.how, "does-not-compile");
  assert.equal(build.line, 7);
  const undef = goEnding(
    exec("# example.com/q/autofix_reproducer\nautofix_reproducer/main.go:5:9: undefined: calc.Helper\n"),
  );
  assert.equal(undef.how, "does-not-import");
  const printed = goEnding(exec("AssertionError: x\nexit status 1\n"));
  assert.equal(printed.how, "unknown");
  assert.equal(goEnding(exec("", 0)).how, "exit");
});

test("java: an uncaught exception after its frames, a compile error, a missing class", () => {
  const thrown = javaEnding(
    exec(
      'Exception in thread "main" java.lang.AssertionError: expected 212.0, got 148.0\n\tat Reproducer.main(Reproducer.java:5)\n',
    ),
  );
  assert.deepEqual(
    { how: thrown.how, type: thrown.type, assertion: thrown.assertion },
    { how: "exception", type: "java.lang.AssertionError", assertion: true },
  );
  const compile = javaEnding(
    exec(
      "Reproducer.java:4: error: ';' expected\n    throw new AssertionError(\"x\")\n                                  ^\n1 error\nerror: compilation failed\n",
    ),
  );
  assert.equal(compile.how, "does-not-compile");
  assert.equal(compile.line, 4);
  const symbol = javaEnding(
    exec(
      "Reproducer.java:3: error: cannot find symbol\n    Price.helper();\n1 error\nerror: compilation failed\n",
    ),
  );
  assert.equal(symbol.how, "does-not-import");
  const missing = javaEnding(
    exec(
      'Exception in thread "main" java.lang.NoClassDefFoundError: shop/Price\n\tat Reproducer.main(Reproducer.java:3)\n',
    ),
  );
  assert.equal(missing.how, "does-not-import");
  assert.equal(javaEnding(exec("java.lang.AssertionError printed by hand\n")).how, "unknown");
});

test("node: a function's declaration line is not its body: calling it does not run the line it starts on", async () => {
  const dir = tree({
    "lib.cjs":
      "function before(x) {\n  return x + 1;\n}\nfunction next(x) {\n  return x * 2;\n}\nmodule.exports = { next };\n",
    "reproducer.cjs": 'const { next } = require("./lib.cjs");\nrequire("node:assert").equal(next(2), 5);\n',
  });
  const r = await run(dir, "node", "reproducer.cjs");
  assert.equal(r.ending.assertion, true);
  assert.deepEqual(r.trace, { "lib.cjs": [5, 6] });
});

/** The script finds its own record's path on its command line, as a script written against the launcher would. */
const FIND_RECORD =
  "import os\nargs = open('/proc/self/cmdline', 'rb').read().split(b'\\0')\nrecord = next(a.decode() for a in args if a.endswith(b'-r.json'))\n";

test("python: a script that puts a link in its record's place is not believed, and the host file it names is untouched", async () => {
  const outside = tempDir("auto-fix-script-run-host-");
  const secret = join(outside, "host.json");
  const forged = '{"how": "exception", "type": "AssertionError", "assertion": true, "exit": 1, "lines": {}}';
  writeFileSync(secret, forged);
  const dir = tree({
    "reproducer.py": `${FIND_RECORD}os.unlink(record)\nos.symlink(${JSON.stringify(secret)}, record)\nraise AssertionError('forged')\n`,
  });
  const r = await run(dir, "python", "reproducer.py");
  assert.notEqual(r.ending.how, "exception", JSON.stringify(r.ending));
  assert.equal(readFileSync(secret, "utf8"), forged, "the host file is never written");
});

test("python: a record blown up past its cap is refused, not read whole", async () => {
  const dir = tree({
    "reproducer.py": `${FIND_RECORD}with open(record, 'a') as f:\n    f.write(' ' * (64 << 20))\nraise AssertionError('x')\n`,
  });
  const started = performance.now();
  const r = await run(dir, "python", "reproducer.py");
  console.log(
    `64 MiB record: judged in ${Math.round(performance.now() - started)} ms, ending ${r.ending.how}`,
  );
  assert.notEqual(r.ending.how, "exception", JSON.stringify(r.ending));
});
