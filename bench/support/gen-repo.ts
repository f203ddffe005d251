/**
 * Generated repositories for `bench/repo-bench.ts`: a Python project of 800+ files whose modules import
 * each other, with about twenty pytest files of mixed cost (quick ones, two slow ones, one that needs the
 * network, one that hangs until it is stopped), and a JavaScript library with a `node_modules` of about a
 * thousand files whose tests load it through `require('../')`. The same seed gives the same trees.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const AREAS =
  "catalog pricing orders invoices shipping customers inventory payments returns reports loyalty taxes suppliers warehouse promotions accounts billing carts coupons currency delivery exports feeds gifts imports ledger locales notifications packaging partners quotes ratings refunds regions reviews search sessions stock subscriptions vouchers".split(
    " ",
  );
const NOUNS =
  "item entry record line batch rule policy schedule window bucket ledger summary filter mapper index cache rate band slot label".split(
    " ",
  );

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const write = (root: string, rel: string, text: string): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

/** One ordinary module of the generated Python project: a dataclass and a few functions over it. */
function pyModule(area: string, noun: string, imports: string[], r: () => number): string {
  const cls = noun[0]!.toUpperCase() + noun.slice(1) + area[0]!.toUpperCase() + area.slice(1, 4);
  const factor = (1 + Math.floor(r() * 9)) / 10;
  const lines = [
    `"""${area}: ${noun}s and what is computed from them."""`,
    "",
    "from __future__ import annotations",
    "",
    "from dataclasses import dataclass, field",
    ...imports.map((m) => `from shopkit.${m.replace("/", ".")} import summarize as _${m.replace("/", "_")}`),
    "",
    "",
    "@dataclass",
    `class ${cls}:`,
    "    name: str",
    "    amount: float = 0.0",
    "    tags: list[str] = field(default_factory=list)",
    "",
    "    def weight(self) -> float:",
    `        return round(self.amount * ${factor} + len(self.tags), 4)`,
    "",
    "",
    `def build(names: list[str]) -> list[${cls}]:`,
    `    return [${cls}(name=n, amount=float(len(n)), tags=[n[:2]]) for n in names if n]`,
    "",
    "",
    `def by_tag(items: list[${cls}]) -> dict[str, list[${cls}]]:`,
    `    out: dict[str, list[${cls}]] = {}`,
    "    for item in items:",
    "        for tag in item.tags:",
    "            out.setdefault(tag, []).append(item)",
    "    return out",
    "",
    "",
    "def summarize(values: list[float]) -> dict[str, float]:",
    "    if not values:",
    '        return {"count": 0, "total": 0.0, "mean": 0.0}',
    "    total = sum(values)",
    `    extra = ${imports.length > 0 ? `_${imports[0]!.replace("/", "_")}(values[:2])["count"]` : "0"}`,
    '    return {"count": len(values) + extra * 0, "total": total, "mean": total / len(values)}',
    "",
  ];
  return lines.join("\n");
}

const DISCOUNTS = `"""pricing: discounts applied to order amounts."""

from __future__ import annotations

from shopkit.currency.currency_rate import summarize as _rates


def apply_discount(amount: float, percent: float) -> float:
    """The amount after a discount of \`percent\` per cent (0-100)."""
    if percent < 0 or percent > 100:
        raise ValueError(f"percent must be between 0 and 100, not {percent}")
    return round(amount - amount * percent / 10, 2)


def best_discount(amount: float, offers: list[float]) -> float:
    """The lowest price any of the offers gives."""
    if not offers:
        return amount
    return min(apply_discount(amount, p) for p in offers)


def discount_table(amounts: list[float], percent: float) -> dict[str, float]:
    _rates(amounts[:1])
    return {f"{a:.2f}": apply_discount(a, percent) for a in amounts}
`;

const CHECKOUT = `"""orders: the checkout total of a cart."""

from __future__ import annotations

from shopkit.pricing.discounts import apply_discount, best_discount


def checkout_total(lines: list[tuple[float, int]], percent: float = 0.0) -> float:
    subtotal = sum(price * qty for price, qty in lines)
    return apply_discount(subtotal, percent)


def cheapest_total(lines: list[tuple[float, int]], offers: list[float]) -> float:
    subtotal = sum(price * qty for price, qty in lines)
    return best_discount(subtotal, offers)
`;

const REPORT = `"""reports: a sales summary over many orders."""

from __future__ import annotations

from shopkit.orders.checkout import checkout_total


def sales_summary(orders: list[list[tuple[float, int]]], percent: float) -> dict[str, float]:
    totals = [checkout_total(o, percent) for o in orders]
    return {"orders": len(totals), "revenue": round(sum(totals), 2)}
`;

/** The test files: [name, text]. Related to the planted bug: the first six. */
function pyTests(): [string, string][] {
  const quick = (area: string, noun: string): string =>
    [
      `from shopkit.${area}.${area}_${noun} import build, by_tag, summarize`,
      "",
      "",
      "def test_build_and_group():",
      '    items = build(["alpha", "beta", "alfalfa"])',
      "    assert len(items) == 3",
      '    assert sorted(by_tag(items)) == ["al", "be"]',
      "",
      "",
      "def test_summarize():",
      '    assert summarize([1.0, 3.0])["mean"] == 2.0',
      '    assert summarize([])["count"] == 0',
      "",
    ].join("\n");
  const tests: [string, string][] = [
    [
      "test_discounts.py",
      [
        "import pytest",
        "",
        "from shopkit.pricing.discounts import apply_discount, best_discount",
        "",
        "",
        "def test_ten_per_cent():",
        "    assert apply_discount(200.0, 10) == 180.0",
        "",
        "",
        "def test_no_discount():",
        "    assert apply_discount(50.0, 0) == 50.0",
        "",
        "",
        "def test_out_of_range():",
        "    with pytest.raises(ValueError):",
        "        apply_discount(10.0, 101)",
        "",
        "",
        "def test_best_offer():",
        "    assert best_discount(100.0, [5, 20]) == 80.0",
        "",
      ].join("\n"),
    ],
    [
      "test_checkout.py",
      [
        "from shopkit.orders.checkout import checkout_total",
        "",
        "",
        "def test_checkout_without_discount():",
        "    assert checkout_total([(10.0, 2), (5.0, 1)]) == 25.0",
        "",
        "",
        "def test_checkout_full_discount():",
        "    assert checkout_total([(10.0, 1)], 100) <= 0.0 or True",
        "",
      ].join("\n"),
    ],
    [
      "test_invoice_totals.py",
      [
        "import time",
        "",
        "import pytest",
        "",
        "from shopkit.pricing.discounts import discount_table",
        "",
        "",
        "@pytest.mark.parametrize('percent', [0, 5, 15, 0.5])",
        "def test_invoice_table(percent):",
        "    time.sleep(1.0)  # the invoice renderer's warm-up, as the real suite pays it",
        "    table = discount_table([10.0, 20.0], percent)",
        "    assert len(table) == 2",
        "",
      ].join("\n"),
    ],
    [
      "test_sales_report.py",
      [
        "from shopkit.reports.summary import sales_summary",
        "",
        "",
        "def test_large_report():",
        "    orders = [[(float(i % 97), 1 + i % 3)] for i in range(60_000)]",
        "    for _ in range(6):",
        "        out = sales_summary(orders, 0)",
        "    assert out['orders'] == 60_000",
        "",
      ].join("\n"),
    ],
    [
      "test_rates_online.py",
      [
        "import socket",
        "",
        "from shopkit.pricing.discounts import apply_discount",
        "",
        "",
        "def test_live_rate_applies():",
        "    # Needs the exchange-rate service: no network, no test.",
        "    with socket.create_connection(('rates.example.org', 443), timeout=30):",
        "        pass",
        "    assert apply_discount(100.0, 0) == 100.0",
        "",
      ].join("\n"),
    ],
    [
      "test_discount_stress.py",
      [
        "import threading",
        "",
        "from shopkit.pricing.discounts import apply_discount",
        "",
        "",
        "def test_concurrent_discounts():",
        "    done = threading.Event()",
        "    results = []",
        "",
        "    def worker():",
        "        results.append(apply_discount(10.0, 0))",
        "        # Waits for a signal nobody sends: this test hangs until it is stopped.",
        "        done.wait()",
        "",
        "    t = threading.Thread(target=worker)",
        "    t.start()",
        "    t.join()",
        "    assert results == [10.0]",
        "",
      ].join("\n"),
    ],
  ];
  const others = AREAS.filter((a) => !["pricing", "orders", "reports"].includes(a)).slice(0, 14);
  for (const [i, area] of others.entries())
    tests.push([`test_${area}.py`, quick(area, NOUNS[i % NOUNS.length]!)]);
  return tests;
}

export interface PythonRepo {
  files: number;
  tests: number;
  /** The planted bug's file, what is wrong, and the fix as the patch writer would answer it. */
  bug: { file: string; method: string; original: string; patched: string };
}

/** Writes the Python project into `root` (created) and commits it to a git repository there. */
export function generatePythonRepo(root: string, seed = 1, opts: { withoutHang?: boolean } = {}): PythonRepo {
  const r = rng(seed);
  let files = 0;
  const put = (rel: string, text: string): void => {
    write(root, rel, text);
    files++;
  };
  put(
    "pyproject.toml",
    '[project]\nname = "shopkit"\nversion = "1.4.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  );
  put("README.md", "# shopkit\n\nPrices, orders and invoices for small shops.\n");
  put("shopkit/__init__.py", '"""shopkit."""\n');
  const made: string[] = [];
  for (const area of AREAS) {
    put(`shopkit/${area}/__init__.py`, `"""${area}."""\n`);
    for (const noun of NOUNS) {
      const mod = `${area}/${area}_${noun}`;
      const imports: string[] = [];
      for (let k = 0; k < 2 && made.length > 0; k++) {
        const pick = made[Math.floor(r() * made.length)]!;
        if (!imports.includes(pick)) imports.push(pick);
      }
      put(`shopkit/${mod}.py`, pyModule(area, noun, imports, r));
      made.push(mod);
    }
  }
  put("shopkit/pricing/discounts.py", DISCOUNTS);
  put("shopkit/orders/checkout.py", CHECKOUT);
  put("shopkit/reports/summary.py", REPORT);
  const tests = pyTests().filter(([name]) => !(opts.withoutHang && name === "test_discount_stress.py"));
  for (const [name, text] of tests) put(`tests/${name}`, text);
  gitInit(root);
  return {
    files,
    tests: tests.length,
    bug: {
      file: "shopkit/pricing/discounts.py",
      method: "apply_discount",
      original: "    return round(amount - amount * percent / 10, 2)",
      patched: "    return round(amount - amount * percent / 100, 2)",
    },
  };
}

function gitInit(root: string): void {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "dev",
    GIT_AUTHOR_EMAIL: "dev@example.org",
    GIT_COMMITTER_NAME: "dev",
    GIT_COMMITTER_EMAIL: "dev@example.org",
  };
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root, env });
  execFileSync("git", ["add", "-A"], { cwd: root, env });
  execFileSync("git", ["commit", "-qm", "initial"], { cwd: root, env });
}

export interface JsRepo {
  files: number;
  dependencyFiles: number;
  library: string;
}

/**
 * A JavaScript library whose tests load it through `require('../')`, with a `node_modules` of `packages`
 * fake packages (each a package.json, an index and a few library files, about 1,000 files in all by
 * default) that the library requires.
 */
export function generateJsRepo(root: string, packages = 120): JsRepo {
  let files = 0;
  let dependencyFiles = 0;
  const put = (rel: string, text: string): void => {
    write(root, rel, text);
    if (rel.startsWith("node_modules/")) dependencyFiles++;
    else files++;
  };
  const deps: Record<string, string> = {};
  for (let i = 0; i < packages; i++) {
    const name = `dep-${NOUNS[i % NOUNS.length]}-${i}`;
    deps[name] = "^1.0.0";
    put(`node_modules/${name}/package.json`, JSON.stringify({ name, version: "1.0.0", main: "index.js" }));
    put(`node_modules/${name}/README.md`, `# ${name}\n`);
    for (let k = 0; k < 5; k++) {
      put(
        `node_modules/${name}/lib/part${k}.js`,
        `'use strict';\nmodule.exports = function part${k}(x) {\n  return typeof x === 'number' ? x + ${k} : String(x).length + ${k};\n};\n`,
      );
    }
    put(
      `node_modules/${name}/index.js`,
      `'use strict';\nconst parts = [0, 1, 2, 3, 4].map((k) => require('./lib/part' + k));\nmodule.exports = (x) => parts.reduce((a, f) => a + f(x), 0);\n`,
    );
  }
  put(
    "package.json",
    JSON.stringify(
      {
        name: "sumlib",
        version: "2.1.0",
        main: "index.js",
        scripts: { test: "node --test" },
        dependencies: deps,
      },
      null,
      2,
    ),
  );
  const first = Object.keys(deps)[0]!;
  put(
    "index.js",
    `'use strict';\nconst score = require('${first}');\n\n/** The total of a list of numbers. */\nfunction total(values) {\n  let sum = 0;\n  for (let i = 1; i < values.length; i++) sum += values[i];\n  return sum;\n}\n\nmodule.exports = { total, score };\n`,
  );
  put(
    "test/total.test.js",
    `'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { total } = require('../');\n\ntest('total adds every value', () => {\n  assert.strictEqual(total([1, 2, 3]), 6);\n});\n`,
  );
  put(
    "test/score.test.js",
    `'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst lib = require('../');\n\ntest('score of a word', () => {\n  assert.ok(lib.score('abc') > 0);\n});\n`,
  );
  put("README.md", "# sumlib\n");
  put(".gitignore", "node_modules\n");
  // \`npm test\` runs the whole suite only: the runner itself, so that one test file can be run alone.
  put(".github/auto-fix.yml", "test: node --test\n");
  gitInit(root);
  return { files, dependencyFiles, library: "index.js" };
}
