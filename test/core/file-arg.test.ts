import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveFileArg } from "../../src/core/file-arg.ts";

const files = ["src/a/util.py", "src/b/util.py", "src/a/models.py", "README.py"];

test("resolves relative, ./, absolute, suffix and basename forms", () => {
  assert.deepEqual(resolveFileArg("src/a/models.py", files, "/r"), { ok: true, file: "src/a/models.py" });
  assert.deepEqual(resolveFileArg("./src/a/models.py", files, "/r"), { ok: true, file: "src/a/models.py" });
  assert.deepEqual(resolveFileArg("/r/src/a/models.py", files, "/r"), { ok: true, file: "src/a/models.py" });
  assert.deepEqual(resolveFileArg("a/models.py", files, "/r"), { ok: true, file: "src/a/models.py" });
  assert.deepEqual(resolveFileArg("models.py", files, "/r"), { ok: true, file: "src/a/models.py" });
});

test("an ambiguous basename lists the candidates", () => {
  const r = resolveFileArg("util.py", files, "/r");
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.reason, "ambiguous");
    assert.deepEqual(r.candidates, ["src/a/util.py", "src/b/util.py"]);
    assert.match(r.message, /src\/a\/util\.py, src\/b\/util\.py/);
  }
});

test("paths that leave the repository are refused", () => {
  for (const p of ["../etc/passwd", "/etc/passwd", "src/../../x.py"]) {
    const r = resolveFileArg(p, files, "/r");
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.reason, "outside");
  }
  const missing = resolveFileArg("nope.py", files, "/r");
  assert.equal(missing.ok, false);
  if (!missing.ok) assert.equal(missing.reason, "not-found");
});
