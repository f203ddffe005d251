/** go test's check tests: a `_test.go` file in each tested package, found by go's own rules. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TreeFsError } from "../../../src/core/tree-fs.ts";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const go = rulesOf("go");
const T = 'package ops\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {}\n';

test("every package `./...` tests gets the file; vendor, testdata and hidden folders are not packages", () => {
  const { tree } = treeOf({
    "ops/ops_test.go": T,
    "ops/sub/sub_test.go": "package sub\n",
    "vendor/x/x_test.go": "package x\n",
    "ops/testdata/t_test.go": "package t\n",
    "README.md": "",
  });
  const spot = go.spot({
    tree,
    words: ["go", "test", "-count=1", "./..."],
    targets: null,
    valueOptions: new Set(),
  });
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["ops", "ops/sub"]);
  assert.deepEqual(spot.args("ops/x_test.go"), []);
  assert.deepEqual(
    go.spot({ tree, words: ["go", "test", "example.com/ops"], targets: null, valueOptions: new Set() }),
    {
      unverified: "`example.com/ops` is not a package folder of the module",
    },
  );
});

test("the file is in the package's clause, named like its test files; ids carry the word capitalised", () => {
  const { tree } = treeOf({ "ops/ops_test.go": T, "ops/os.go": "package ops\n\nvar os = 1\n" });
  const src = go.source(sourceInput(tree, "ops"));
  assert.equal(src.name, "ops_kavelomi_test.go");
  assert.equal(src.passName, "TestKavelomi");
  assert.equal(src.failName, "TestKavelomiDapuno");
  assert.match(src.text, /^package ops$/m);
  // The package declares `os` itself: the import takes another name.
  assert.match(src.text, /kavelomios "os"/);
  assert.equal(go.idToken("kavelomi"), "Kavelomi");
  assert.throws(() => go.source(sourceInput(treeOf({ "x/a.go": "" }).tree, "x")), TreeFsError);
});

test("a package's own result stands for its tests; a build failure is a stop, not tampering", () => {
  assert.deepEqual(go.groupOf("example.com/ops.TestKavelomi"), {
    id: "example.com/ops.<package>",
    prefix: "example.com/ops.",
  });
  const seen = { ids: [], reported: false, forged: false, misreported: false };
  assert.match(
    go.stoppedBeforeTests({ ...seen, stdout: "FAIL\texample.com/ops [build failed]" }) ?? "",
    /did not build/,
  );
  assert.equal(
    go.stoppedBeforeTests({ ...seen, stdout: "FAIL\texample.com/ops [build failed]", forged: true }),
    null,
  );
  assert.equal(go.deselecting(["go", "test", "-run", "TestAdd", "./..."]), "-run");
});
