/** pytest's check tests: where they go, what they look like, and what pytest's summary says of them. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const pytest = rulesOf("pytest");
const NO_VALUES: ReadonlySet<string> = new Set(["-p", "--rootdir"]);

const SAMPLE = "from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n";

test("beside the first path the command names, given to pytest as one more path", () => {
  const { tree } = treeOf({
    "calc/ops.py": "def add(a, b):\n    return a + b\n",
    "tests/test_ops.py": SAMPLE,
  });
  const spot = pytest.spot({
    tree,
    words: ["python", "-m", "pytest", "-p", "x", "tests/test_ops.py"],
    targets: null,
    valueOptions: NO_VALUES,
  });
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["tests"]);
  assert.equal(spot.sample, "tests/test_ops.py");
  assert.deepEqual(spot.args("tests/test_ops_kavelomi.py"), ["tests/test_ops_kavelomi.py"]);
  assert.equal(spot.scope, undefined);
});

test("with no path, pytest's testpaths become the run's explicit scope; a pattern there places none", () => {
  const files = { "pytest.ini": "[pytest]\ntestpaths = tests\n", "tests/test_ops.py": SAMPLE };
  const spot = pytest.spot({
    tree: treeOf(files).tree,
    words: ["pytest", "-q"],
    targets: null,
    valueOptions: NO_VALUES,
  });
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.scope, ["tests"]);
  assert.deepEqual(spot.dirs, ["tests"]);
  const glob = { "pytest.ini": "[pytest]\ntestpaths = tests/*\n", "tests/test_ops.py": SAMPLE };
  assert.deepEqual(
    pytest.spot({ tree: treeOf(glob).tree, words: ["pytest"], targets: null, valueOptions: NO_VALUES }),
    {
      unverified: "pytest's `testpaths` holds a pattern",
    },
  );
});

test("options that could deselect the check tests are found after pytest's own word", () => {
  assert.equal(pytest.deselecting(["python", "-m", "pytest", "-q", "-k", "add"]), "-k");
  assert.equal(pytest.deselecting(["pytest", "--maxfail=2"]), "--maxfail=2");
  assert.equal(pytest.deselecting(["pytest", "-q", "tests"]), undefined);
});

test("the file imports what its sample imports, calls its code with literals and asserts with plain assert", () => {
  const { tree } = treeOf({ "calc/__init__.py": "", "calc/ops.py": "", "tests/test_ops.py": SAMPLE });
  const src = pytest.source(sourceInput(tree, "tests", { preferred: "tests/test_ops.py" }));
  assert.equal(src.name, "test_ops_kavelomi.py");
  assert.equal(src.passName, "test_add_kavelomi");
  assert.equal(src.failName, "test_add_kavelomi_dapuno");
  assert.match(src.text, /^from calc\.ops import add, mul$/m);
  assert.match(
    src.text,
    /^def test_add_kavelomi_dapuno\(\):\n {4}assert add\(2, 3\) == "0123456789abcdef"$/m,
  );
  assert.match(src.text, /\.bolame-a1b2c3\.tmp/);
  assert.equal(src.sample, "tests/test_ops.py");
});

test("pytest's summary: one failure and no error is the check test's alone; exit 5 when nothing else ran", () => {
  assert.equal(pytest.onlyOneFailed("===== 1 failed, 4 passed in 0.12s ====="), true);
  assert.equal(pytest.onlyOneFailed("===== 1 failed, 4 passed, 1 error in 0.12s ====="), false);
  assert.equal(pytest.onlyOneFailed("===== 2 failed in 0.12s ====="), false);
  // pytest 7 collects a named file once more when a named folder holds it: the check test fails twice.
  const canary = { file: "tests/test_kavelomi.py", failName: "test_add_kavelomi_dapuno" };
  const twice = [
    "FAILED tests/test_kavelomi.py::test_add_kavelomi_dapuno - AssertionError",
    "FAILED tests/test_kavelomi.py::test_add_kavelomi_dapuno - AssertionError",
    "===== 2 failed, 8 passed in 0.12s =====",
  ].join("\n");
  assert.equal(pytest.onlyOneFailed(twice, canary), true);
  const another = twice.replace(
    /^(FAILED tests\/)test_kavelomi\.py::test_add_kavelomi_dapuno/m,
    "$1test_ops.py::test_mul",
  );
  assert.equal(
    pytest.onlyOneFailed(another, canary),
    false,
    "a repository test's failure is not the check test's",
  );
  assert.equal(pytest.emptyExitCode, 5);
  const seen = { ids: ["tests/test_x.py::<collection>"], reported: false, forged: false, misreported: false };
  const stdout = "!!!!!!!! Interrupted: 1 error during collection !!!!!!!!";
  assert.match(
    pytest.stoppedBeforeTests({ ...seen, stdout }) ?? "",
    /stopped at an error collecting the tests/,
  );
  assert.equal(pytest.stoppedBeforeTests({ ...seen, stdout, reported: true }), null);
});

test("the compiled copy Python leaves of the check tests' module is removed with it", () => {
  const { tree } = treeOf({
    "tests/__pycache__/test_ops_kavelomi.cpython-312-pytest-8.0.pyc": "x",
    "tests/__pycache__/test_ops.cpython-312-pytest-8.0.pyc": "x",
  });
  assert.deepEqual(pytest.leftovers(tree, "tests", "tests/test_ops_kavelomi.py"), [
    "tests/__pycache__/test_ops_kavelomi.cpython-312-pytest-8.0.pyc",
  ]);
});
