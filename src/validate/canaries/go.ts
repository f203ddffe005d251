/**
 * go test's canaries: a `_test.go` file in each tested package, named like the package's own test files,
 * with tests named as Go tests are, failing through `t.Errorf` as the package's tests do. They call no code
 * of the package: without its types a borrowed call could stop the package's tests from compiling.
 */
import type { TreeFs } from "../../core/tree-fs.ts";
import type { CanarySource, SourceInput } from "./python.ts";

const cap = (w: string): string => w[0]!.toUpperCase() + w.slice(1);

/** Whether a Go file of `dir` declares `name` at package level (an import of it would clash). */
function declares(tree: TreeFs, dir: string, name: string): boolean {
  const decl = new RegExp(`^(func|var|const|type)\\s+${name}\\b|^\\s+${name}\\s*(=|\\s\\w)`, "m");
  for (const e of tree.list(dir)) {
    if (e.kind !== "file" || !e.name.endsWith(".go")) continue;
    const text = tree.read(dir ? `${dir}/${e.name}` : e.name, { maxBytes: 4 * 1024 * 1024 }).toString("utf8");
    if (decl.test(text)) return true;
  }
  return false;
}

/** The Go canaries for the package `goPkg` in `input.dir`. */
export function goCanary(input: SourceInput, goPkg: string): CanarySource {
  const sample = input.tree
    .list(input.dir)
    .filter((e) => e.kind === "file" && e.name.endsWith("_test.go"))
    .map((e) => e.name)
    .sort()[0];
  const core = sample ? sample.replace(/_test\.go$/, "") : goPkg.toLowerCase();
  const passName = `Test${cap(input.token)}`;
  const failName = `${passName}${cap(input.other)}`;
  const os = declares(input.tree, input.dir, "os") ? `${input.token}os` : "os";
  const testing = declares(input.tree, input.dir, "testing") ? `${input.token}testing` : "testing";
  const alias = (name: string, pkg: string): string => (name === pkg ? `"${pkg}"` : `${name} "${pkg}"`);
  const text = [
    `package ${goPkg}`,
    "",
    `import (\n\t${alias(os, "os")}\n\t${alias(testing, "testing")}\n)`,
    "",
    `func ${passName}(t *${testing}.T) {`,
    `\tf, err := ${os}.OpenFile(${JSON.stringify(input.proofName)}, ${os}.O_APPEND|${os}.O_CREATE|${os}.O_WRONLY, 0o644)`,
    "\tif err != nil {\n\t\tt.Fatal(err)\n\t}",
    `\tif _, err := f.WriteString(${JSON.stringify(`${input.proofValue}\n`)}); err != nil {\n\t\tt.Fatal(err)\n\t}`,
    "\tif err := f.Close(); err != nil {\n\t\tt.Fatal(err)\n\t}",
    "}",
    "",
    `func ${failName}(t *${testing}.T) {`,
    `\tgot, want := ${JSON.stringify(input.other)}, ${JSON.stringify(input.impossible)}`,
    "\tif got != want {",
    '\t\tt.Errorf("got %q, want %q", got, want)',
    "\t}",
    "}",
    "",
  ].join("\n");
  const at = sample ? (input.dir ? `${input.dir}/${sample}` : sample) : undefined;
  return { name: `${core}_${input.token}_test.go`, text, passName, failName, ...(at ? { sample: at } : {}) };
}
