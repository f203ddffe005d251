/**
 * Python check tests, for pytest and unittest: a test module beside one of the repository's own, named
 * like it, importing what it imports and calling the repository's code the way it does. The one that must
 * fail asserts that a real call's result equals a random string it cannot equal, through the assertion the
 * repository's tests use (a plain `assert` in test functions, `self.assertEqual` in a TestCase); the one
 * that must pass makes the same call, leaves its proof and asserts through the same kind of call.
 */
import { TreeFsError, type TreeFs } from "../../core/tree-fs.ts";
import type { CanarySource, SourceInput } from "../parts/canaries.ts";
import {
  type BorrowedCall,
  borrowCall,
  type Header,
  pickSample,
  readText,
  type Sample,
} from "./canaries-sample.ts";

/** How the tests are written: plain test functions (pytest) or methods of a TestCase (unittest). */
export type PythonStyle = "functions" | "testcase";

/** A Python header: the import statements and what they bind, or null when the module could skip. */
export function pythonHeader(text: string): Header | null {
  const all = text.split(/\r?\n/);
  const end = all.findIndex((l) => /^(def |async def |class |@|if __name__)/.test(l));
  const lines = all.slice(0, end < 0 ? all.length : end);
  // A module-level skip, a mark, a collection hook or an exit would act on the canaries' module too.
  if (
    lines.length > 300 ||
    /skip|pytestmark|xfail|collect_ignore|__test__|exit\(|unittest\.main|setUpModule|load_tests/.test(
      lines.join("\n"),
    )
  )
    return null;
  const names = new Map<string, string>();
  const joined = lines.join("\n").replace(/\(([^)]*)\)/g, (_m, inner: string) => inner.replace(/\n/g, " "));
  for (const stmt of joined.split("\n")) {
    const from = /^from\s+(\S+)\s+import\s+(.+)$/.exec(stmt);
    if (from) {
      for (const part of from[2]!.replace(/#.*$/, "").split(",")) {
        const m = /^\s*(\w+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
        if (m) names.set(m[2] ?? m[1]!, from[1]!);
      }
      continue;
    }
    const imp = /^import\s+(.+)$/.exec(stmt);
    if (imp) {
      for (const part of imp[1]!.replace(/#.*$/, "").split(",")) {
        const m = /^\s*([\w.]+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
        if (m) names.set(m[2] ?? m[1]!.split(".")[0]!, m[1]!);
      }
    }
  }
  return { lines, names };
}

/** Whether a Python module is the repository's own: relative, or a package or module of the tree. */
export function pythonModuleOfTree(tree: TreeFs, dir: string, module: string): boolean {
  if (module.startsWith(".")) return true;
  const top = module.split(".")[0]!;
  for (const base of ["", "src", "lib", dir]) {
    for (const rel of [`${top}/__init__.py`, `${top}.py`]) {
      const p = base ? `${base}/${rel}` : rel;
      if (readText(tree, p) !== null) return true;
    }
  }
  return false;
}

const PY_TEST_FILE = /^(test.*\.py|.*_test\.py)$/;

/** The first name of `candidates` that neither the header binds nor the call spells. */
function freeName(candidates: string[], header: Header | null, call: BorrowedCall | null): string {
  for (const c of candidates) {
    if (header?.names.has(c)) continue;
    if (call && new RegExp(`\\b${c}\\b`).test(call.text)) continue;
    return c;
  }
  return `${candidates[0]}_`;
}

/** The sample, its header and call, for a Python canary in `input.dir`. */
function borrow(input: SourceInput): {
  sample: Sample | null;
  header: Header | null;
  call: BorrowedCall | null;
} {
  const sample = pickSample(
    input.tree,
    input.dir,
    (n) => PY_TEST_FILE.test(n),
    (text) => pythonHeader(text) !== null,
    input.preferred,
    input.focus,
  );
  const header = sample ? pythonHeader(sample.text) : null;
  const call =
    sample && header
      ? borrowCall(sample, header, (m) => pythonModuleOfTree(input.tree, input.dir, m), "python", input.focus)
      : null;
  return { sample, header, call };
}

/** A name for the canary module like the sample's (`test_ops.py` → `test_ops_<token>.py`). */
function moduleName(sample: Sample | null, token: string): string {
  const base = sample?.path.slice(sample.path.lastIndexOf("/") + 1) ?? "test_.py";
  if (/^test/.test(base)) return base.replace(/\.py$/, `${base === "test_.py" ? "" : "_"}${token}.py`);
  return `${token}_${base}`;
}

/** The Python check tests: plain functions with a plain `assert`, or a TestCase. */
export function pythonCanary(style: PythonStyle, input: SourceInput): CanarySource {
  const { sample, header, call } = borrow(input);
  const callee = call ? call.text.replace(/\(.*$/s, "").split(".").at(-1)!.replace(/\W/g, "") : "";
  const stem = /^[a-z_]\w*$/i.test(callee) ? callee.toLowerCase() : "";
  const passName = `test_${stem ? `${stem}_` : ""}${input.token}`;
  const failName = `${passName}_${input.other}`;
  const result = freeName(["result", "value", "got", "actual"], header, call);
  const error = freeName(["error", "exc", "err"], header, call);
  const out = freeName(["out", "fh", "stream"], header, call);
  const osName = header?.names.get("os") === "os" ? "os" : freeName(["os", "_os"], header, call);
  // Without a call of the repository's code, the canary still holds one of its names when it can.
  const repoName = header
    ? [...header.names].find(([, m]) => pythonModuleOfTree(input.tree, input.dir, m))?.[0]
    : undefined;
  const subject = call?.text ?? repoName ?? JSON.stringify(input.spare);
  const lines: string[] = [...(header?.lines ?? [])];
  while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
  if (osName !== "os" || header?.names.get("os") !== "os")
    lines.push(osName === "os" ? "import os" : `import os as ${osName}`);
  let tcBase = "unittest.TestCase";
  if (style === "testcase") {
    if (header?.names.get("TestCase") === "unittest") tcBase = "TestCase";
    else if (header?.names.get("unittest") !== "unittest") lines.push("import unittest");
  }
  const proofPath = `${osName}.path.join(${osName}.path.dirname(${osName}.path.abspath(__file__)), ${JSON.stringify(input.proofName)})`;
  const passBody = (i: string): string[] => [
    `${i}try:`,
    `${i}    ${result} = ${subject}`,
    `${i}except Exception as ${error}:`,
    `${i}    ${result} = ${error}`,
    `${i}with open(${proofPath}, "a") as ${out}:`,
    `${i}    ${out}.write(${JSON.stringify(`${input.proofValue}\n`)})`,
  ];
  const impossible = JSON.stringify(input.impossible);
  if (style === "functions") {
    lines.push(
      "",
      "",
      `def ${passName}():`,
      ...passBody("    "),
      `    assert ${result} is ${result}`,
      "",
      "",
      `def ${failName}():`,
      `    assert ${subject} == ${impossible}`,
      "",
    );
  } else {
    const sampleClass = /^class\s+(\w+)\s*\(/m.exec(sample?.text ?? "")?.[1] ?? "Tests";
    const cls = `${sampleClass}${input.token[0]!.toUpperCase()}${input.token.slice(1)}`;
    lines.push(
      "",
      "",
      `class ${cls}(${tcBase}):`,
      `    def ${passName}(self):`,
      ...passBody("        "),
      `        self.assertIs(${result}, ${result})`,
      "",
      `    def ${failName}(self):`,
      `        self.assertEqual(${subject}, ${impossible})`,
      "",
    );
  }
  const name = moduleName(sample, input.token);
  return { name, text: lines.join("\n"), passName, failName, ...(sample ? { sample: sample.path } : {}) };
}

/** The compiled copies Python leaves of the check tests' module in `__pycache__` beside it. */
export function pythonLeftovers(tree: TreeFs, dir: string, file: string): string[] {
  const cache = dir ? `${dir}/__pycache__` : "__pycache__";
  const stem = file.slice(file.lastIndexOf("/") + 1).replace(/\.py$/, "");
  try {
    return tree
      .list(cache)
      .filter((e) => e.name.includes(stem))
      .map((e) => `${cache}/${e.name}`);
  } catch (err) {
    if (err instanceof TreeFsError) return [];
    throw err;
  }
}
