/**
 * pytest's and unittest's canaries: a test module beside one of the repository's own, named like it,
 * importing what it imports and calling the repository's code the way it does. The one that must fail
 * asserts that a real call's result equals a random string it cannot equal, through the assertion the
 * repository's tests use (a plain `assert` under pytest, `self.assertEqual` under unittest); the one that
 * must pass makes the same call, leaves its proof and asserts through the same kind of call.
 */
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type { Focus } from "./focus.ts";
import {
  type BorrowedCall,
  borrowCall,
  type Header,
  pickSample,
  pythonHeader,
  pythonModuleOfTree,
  type Sample,
  word,
} from "./sample.ts";

/** What every canary source needs. */
export interface SourceInput {
  tree: TreeFs;
  /** Where the canary file goes ("" = root). */
  dir: string;
  /** The random word every canary id and file name holds. */
  token: string;
  /** A second random word: the must-fail canary's name. */
  other: string;
  proofName: string;
  proofValue: string;
  /** A random string no real call returns. */
  impossible: string;
  /** A test file of the run to imitate first (a targeted run's first target). */
  preferred?: string;
  /** What the patch changed: the canaries call it when a test beside them does. */
  focus?: Focus;
}

/** A canary file: its name, text, and the names of its two tests. */
export interface CanarySource {
  name: string;
  text: string;
  passName: string;
  failName: string;
  /** The test file it imitates (relative to the root), when it imitates one. */
  sample?: string;
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

/** The Python canaries for pytest (plain functions, plain `assert`) or unittest (a TestCase). */
export function pythonCanary(runner: "pytest" | "unittest", input: SourceInput): CanarySource {
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
  const subject = call?.text ?? repoName ?? JSON.stringify(word(3));
  const lines: string[] = [...(header?.lines ?? [])];
  while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
  if (osName !== "os" || header?.names.get("os") !== "os")
    lines.push(osName === "os" ? "import os" : `import os as ${osName}`);
  let tcBase = "unittest.TestCase";
  if (runner === "unittest") {
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
  if (runner === "pytest") {
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

/** pytest's `testpaths` from the file pytest reads its configuration from; null when unset. */
export function pytestTestpaths(tree: TreeFs): string[] | null {
  const read = (rel: string): string | null => {
    try {
      return tree.readIfExists(rel, { maxBytes: 1024 * 1024 })?.toString("utf8") ?? null;
    } catch (err) {
      if (err instanceof TreeFsError) return null;
      throw err;
    }
  };
  const ini = (text: string, section: string): string[] | null | undefined => {
    const lines = text.split(/\r?\n/);
    const start = lines.findIndex((l) => l.trim() === `[${section}]`);
    if (start < 0) return undefined;
    for (let i = start + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) {
      const m = /^testpaths\s*[=:]\s*(.*)$/.exec(lines[i]!);
      if (!m) continue;
      const vals = [m[1]!];
      for (let j = i + 1; j < lines.length && /^\s+\S/.test(lines[j]!); j++) vals.push(lines[j]!);
      return vals.join(" ").trim().split(/\s+/).filter(Boolean);
    }
    return null;
  };
  for (const [file, section] of [
    ["pytest.ini", "pytest"],
    [".pytest.ini", "pytest"],
  ] as const) {
    const t = read(file);
    if (t !== null) return ini(t, section) ?? null;
  }
  const pyproject = read("pyproject.toml");
  if (pyproject !== null && /^\[tool\.pytest\.ini_options\]/m.test(pyproject)) {
    const section = pyproject.split(/^\[tool\.pytest\.ini_options\]\s*$/m)[1]?.split(/^\[/m)[0] ?? "";
    const m = /^testpaths\s*=\s*(\[[^\]]*\]|"[^"]*"|'[^']*')/m.exec(section);
    if (!m) return null;
    return [...m[1]!.matchAll(/["']([^"']*)["']/g)].map((x) => x[1]!);
  }
  for (const [file, section] of [
    ["tox.ini", "pytest"],
    ["setup.cfg", "tool:pytest"],
  ] as const) {
    const t = read(file);
    const r = t === null ? undefined : ini(t, section);
    if (r !== undefined) return r;
  }
  return null;
}
