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

test("a path under the repository's folder, or a folder the repository does not have, resolves", () => {
  const repo = ["src/app/models.py", "src/app/views.py", "project.toml", "lib/util.py"];
  // The repository's own name as the first folder.
  assert.deepEqual(resolveFileArg("shop/src/app/models.py", repo, "/work/shop"), {
    ok: true,
    file: "src/app/models.py",
  });
  // A checkout name the repository does not have at its top.
  assert.deepEqual(resolveFileArg("project/src/app/views.py", repo, "/tmp/x/repo"), {
    ok: true,
    file: "src/app/views.py",
  });
  // A real top folder is never dropped: lib/src/app/models.py is not src/app/models.py.
  const r = resolveFileArg("lib/src/app/models.py", repo, "/tmp/x/repo");
  assert.equal(r.ok, false);
});

test("a trailing location (`:12`, `:12-20`, `(lines 12-20)`, `#L12`) is ignored", () => {
  for (const arg of [
    "src/a/models.py:12",
    "src/a/models.py:12-20",
    "models.py (lines 3-9)",
    "src/a/models.py#L4-L9",
  ]) {
    assert.deepEqual(resolveFileArg(arg, files, "/r"), { ok: true, file: "src/a/models.py" }, arg);
  }
});

test("an overlong file argument is refused without a search", () => {
  const r = resolveFileArg(`${"a/".repeat(5000)}x.py`, files, "/r");
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.message, /characters long/);
});
