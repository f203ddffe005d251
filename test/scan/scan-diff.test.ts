/**
 * The patch scan on a diff against a real tree: what the diff adds is scanned (new files too), files in
 * other languages are not, a file that cannot be read is named rather than passed, and the values the
 * patch adds that the reproducer also holds are listed (trivial ones left out).
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { describeFinding, scanDiff, sharedLiterals } from "../../src/scan/index.ts";
import { tempDir } from "../support/temp.ts";

function tree(files: Record<string, string>): string {
  const dir = tempDir("af-scan-diff-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const PRICE = "def price(qty):\n    return qty * 10\n";

test("a diff that special-cases the test's value and reads the environment: both shown, with lines", async () => {
  const root = tree({ "shop/price.py": PRICE, "README.md": "# shop\n" });
  const diff = [
    "--- a/shop/price.py",
    "+++ b/shop/price.py",
    "@@ -1,2 +1,6 @@",
    "+import os",
    " def price(qty):",
    "+    if qty == 37:",
    "+        return 333",
    "+    if os.getenv('SHOP_DEBUG'):",
    "+        return 0",
    "     return qty * 10",
    "--- a/README.md",
    "+++ b/README.md",
    "@@ -1 +1,2 @@",
    " # shop",
    "+os.environ is read",
    "--- /dev/null",
    "+++ b/shop/exit.js",
    "@@ -0,0 +1 @@",
    "+process.exit(0);",
    "",
  ].join("\n");
  const scan = await scanDiff(root, diff);
  assert.deepEqual(
    scan.findings.map((f) => describeFinding(f)),
    [
      "the patch reads the environment: `if os.getenv('SHOP_DEBUG'):` at shop/price.py:5",
      "the patch ends the process: `process.exit(0);` at shop/exit.js:1",
    ],
  );
  assert.deepEqual(scan.unscanned, []);
  const shared = await sharedLiterals(scan, [
    {
      path: "reproducer.py",
      text: "from shop.price import price\nassert price(37) == 333, price(37)\nassert price(1) == 10\n",
    },
  ]);
  assert.deepEqual(shared, ["`37` at shop/price.py:3", "`333` at shop/price.py:4"]);
});

test("an honest diff has no finding; a file the scan cannot read is named, not passed", async () => {
  const root = tree({ "shop/price.py": PRICE, "elsewhere.py": "x = 1\n" });
  symlinkSync(join(root, "elsewhere.py"), join(root, "shop", "link.py"));
  const honest =
    "--- a/shop/price.py\n+++ b/shop/price.py\n@@ -1,2 +1,2 @@\n def price(qty):\n-    return qty * 10\n+    return qty * 12\n";
  assert.deepEqual(await scanDiff(root, honest), {
    findings: [],
    literals: [{ file: "shop/price.py", line: 2, value: "12" }],
    unscanned: [],
  });
  const viaLink = "--- a/shop/link.py\n+++ b/shop/link.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n";
  const scan = await scanDiff(root, viaLink);
  assert.equal(scan.findings.length, 0);
  assert.equal(scan.unscanned.length, 1);
  assert.match(scan.unscanned[0]!, /^shop\/link\.py \(/);
});
