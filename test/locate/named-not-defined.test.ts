/**
 * No patch excerpt says a name is "not in this class yet" when the class's text holds it: a name the
 * index has no definition for (made at run time) is pointed at where it is written; a name written
 * nowhere still gets the place where new code would go.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { formatLocationsForModel } from "../../src/locate/format.ts";
import { resolveBugLocations } from "../../src/locate/locate.ts";
import { tempDir } from "../index/helpers.ts";

const methods = Array.from(
  { length: 20 },
  (_, i) => `    def step_${i}(self, value):\n        """Step ${i}."""\n        return value + ${i}\n`,
).join("\n");
const SOURCE = `class Registry:
    """Holds the steps."""

${methods}
    for _name in ("helper_alias",):
        locals()[_name] = lambda self: None

    def finish(self):
        return self.helper_alias()
`;

test("a name written in the class but not indexed is pointed at, not called absent", async () => {
  const dir = join(tempDir(), "repo");
  mkdirSync(join(dir, "pkg"), { recursive: true });
  writeFileSync(join(dir, "pkg", "registry.py"), SOURCE);
  const index = await buildIndex(dir, { cacheDir: null, workers: 0 });
  const [loc] = await resolveBugLocations(index, [
    { file: "pkg/registry.py", class: "Registry", method: "helper_alias", intended_behavior: "x" },
  ]);
  assert.ok(loc, "the class resolves");
  const lines = SOURCE.split("\n");
  const written = lines.flatMap((l, i) => (/\bhelper_alias\b/.test(l) ? [i + 1] : []));
  assert.equal(written.length, 2);
  assert.doesNotMatch(loc.shown ?? "", /not in this class yet/);
  assert.match(loc.shown ?? "", new RegExp(`name is written at lines ${written.join(", ")}`));
  const [fresh] = await resolveBugLocations(index, [
    { file: "pkg/registry.py", class: "Registry", method: "brand_new", intended_behavior: "x" },
  ]);
  assert.match(fresh?.shown ?? "", /`brand_new` is not in this class yet: new code would go/);
});

test("a location for new code: the class with the member it goes after, or the module; the file's head comes along", async () => {
  const dir = join(tempDir(), "repo");
  mkdirSync(join(dir, "pkg"), { recursive: true });
  writeFileSync(
    join(dir, "pkg", "registry.py"),
    `import os\nfrom typing import Any\n\nLIMIT = 3\n\n\n${SOURCE}`,
  );
  writeFileSync(join(dir, "pkg", "small.py"), "import sys\n\n\ndef run():\n    return sys.argv\n");
  const index = await buildIndex(dir, { cacheDir: null, workers: 0 });
  const [inClass] = await resolveBugLocations(index, [
    { file: "pkg/registry.py", class: "Registry", add: "step_new", after: "step_3", intended_behavior: "x" },
  ]);
  assert.ok(inClass);
  assert.equal(inClass.class, "Registry");
  assert.match(inClass.shown ?? "", /`step_new` is not in this class yet: new code would go after `step_3`/);
  assert.match(inClass.code, /def step_3\(self, value\):\n\s+"""Step 3\."""\n\s+return value \+ 3/);
  const head = inClass.context.find((c) => c.kind === "file-head");
  assert.deepEqual(
    [head?.start, head?.end, head?.code],
    [1, 4, "import os\nfrom typing import Any\n\nLIMIT = 3"],
  );
  const text = formatLocationsForModel([inClass]);
  assert.match(text, /The head of pkg\/registry\.py \(its imports and module-level names\):/);
  const [inModule] = await resolveBugLocations(index, [
    { file: "pkg/small.py", add: "helper", intended_behavior: "a helper" },
  ]);
  assert.equal(inModule?.shown, "New code: add `helper` to the module `pkg/small.py`.");
});
