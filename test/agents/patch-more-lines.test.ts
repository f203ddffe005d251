/**
 * A patch answer may ask for lines it was not shown (`<more_lines file= from= to=/>`), once per patch
 * writing: the scripted model over the real protocol, the real patch engine and index on a real tree.
 * The lines come from the tree (numbered), a request out of range or out of the tree is refused by name,
 * the round is a model call like any (metered, within the budget) and takes no patch attempt.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { patchMessages, runPatchWriter } from "../../src/agents/patch-agent.ts";
import { MAX_LINES_PER_REQUEST, parseMoreLines } from "../../src/agents/more-lines.ts";
import { BudgetExceeded } from "../../src/model/errors.ts";
import { openCode } from "../../src/pipeline/open-code.ts";
import { patchAnswer } from "../support/agent-script.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { type ScriptHandler, startScriptedModel } from "../support/scripted-model.ts";
import { tempDir } from "../support/temp.ts";

const HEAD = "import math\nfrom decimal import Decimal\n\nRATE = Decimal('0.2')\n";
const BODY = "\n\ndef tax(amount):\n    return amount * RATE\n";
const FILLER = Array.from({ length: 30 }, (_, i) => `\n\ndef helper_${i}():\n    return ${i}\n`).join("");

function repo(): string {
  const dir = tempDir("auto-fix-more-lines-");
  mkdirSync(join(dir, "shop"));
  writeFileSync(join(dir, "shop/__init__.py"), "");
  writeFileSync(join(dir, "shop/tax.py"), `${HEAD}${FILLER}${BODY}`);
  symlinkSync("/etc/passwd", join(dir, "shop/passwd.py"));
  return dir;
}

const LOCATIONS =
  "Location 1: <file>shop/tax.py</file> <method>tax</method>\n<code>\ndef tax(amount):\n    return amount * RATE\n</code>";
const ISSUE = { title: "tax rounds wrong", body: "tax(Decimal('1.25')) should round to cents" };

async function writeWith(script: ScriptHandler, budget?: { tokens: number }) {
  const dir = repo();
  const code = await openCode(dir, { cacheDir: null });
  const server = await startScriptedModel(script);
  const m = makeTestModel(server.baseURL, budget ? { budget } : {});
  try {
    const out = await runPatchWriter(m.model, code.engine, {
      issue: ISSUE,
      locations: LOCATIONS,
      history: [],
    });
    return { out, requests: server.requests, calls: m.meter.calls(), meter: m.meter };
  } finally {
    await server.close();
  }
}

const last = (req: { messages: { content: unknown }[] }) => String(req.messages.at(-1)?.content ?? "");

const FIX = patchAnswer(
  "shop/tax.py",
  "    return amount * RATE",
  "    return (amount * RATE).quantize(Decimal('0.01'))",
);

test("the patch prompt teaches the request, naming a located file", () => {
  const [, user] = patchMessages({ issue: ISSUE, locations: LOCATIONS, history: [] }, "FORMAT", {
    moreLines: true,
  });
  assert.match(String(user!.content), /<more_lines file="shop\/tax\.py" from="1" to="40"\/>/);
  const [, plain] = patchMessages({ issue: ISSUE, locations: LOCATIONS, history: [] }, "FORMAT");
  assert.doesNotMatch(String(plain!.content), /more_lines/);
});

test("an answer that asks for the file's head gets those lines, numbered, then patches on its first attempt", async () => {
  const r = await writeWith((_req, i) =>
    i === 0 ? 'I need the imports first.\n<more_lines file="shop/tax.py" from="1" to="4"/>' : FIX,
  );
  assert.equal(r.out.applicable, true);
  assert.equal(r.out.attempts.length, 1, "the lines round takes no attempt");
  assert.equal(r.requests.length, 2);
  assert.equal(r.calls, 2, "the round is a metered model call");
  const given = last(r.requests[1]!);
  assert.match(given, /^The lines you asked for/);
  assert.ok(
    given.includes(
      "shop/tax.py, lines 1-4:\n1 | import math\n2 | from decimal import Decimal\n3 | \n4 | RATE = Decimal('0.2')",
    ),
    given,
  );
  // The conversation keeps the request: the model sees what it asked and what it got.
  assert.match(String(r.requests[1]!.messages.at(-2)?.content), /<more_lines file="shop\/tax\.py"/);
});

test("requests out of range, out of the tree or too many are refused by name; the round is still the one", async () => {
  const lines = HEAD.split("\n").length - 1 + FILLER.split("\n").length - 1 + BODY.split("\n").length - 1;
  const r = await writeWith((_req, i) =>
    i === 0
      ? [
          '<more_lines file="shop/tax.py" from="500" to="510"/>',
          `<more_lines file="shop/tax.py" from="1" to="${MAX_LINES_PER_REQUEST + 1}"/>`,
          '<more_lines file="shop/passwd.py" from="1" to="3"/>',
          '<more_lines file="../../etc/passwd" from="1" to="3"/>',
          '<more_lines file="shop/tax.py" from="two" to="3"/>',
        ].join("\n")
      : i === 1
        ? '<more_lines file="shop/tax.py" from="1" to="4"/>'
        : FIX,
  );
  const given = last(r.requests[1]!);
  assert.match(given, new RegExp(`shop/tax\\.py, lines 500-510: refused: the file has ${lines} lines\\.`));
  assert.match(given, /lines 1-201: refused: at most 200 lines per request\./);
  assert.match(
    given,
    /shop\/passwd\.py, lines 1-3: refused: shop\/passwd\.py is a symbolic link that leaves the repository/,
  );
  assert.match(given, /at most 3 requests at once/);
  assert.match(given, /from="two" to="3"\/>: from and to must be line numbers: refused\./);
  assert.doesNotMatch(given, /root:/, "nothing outside the tree is read");
  // A second request is an attempt without an edit, told that no more lines can be given.
  assert.match(last(r.requests[2]!), /More lines were already given once; none can be given again/);
  assert.equal(r.out.attempts.length, 2);
  assert.equal(r.out.applicable, true);
});

test("a range past the file's end gives what there is, and says where it ends", async () => {
  const r = await writeWith((_req, i) =>
    i === 0 ? "<more_lines file='shop/tax.py' from='120' to='200'/>" : FIX,
  );
  const given = last(r.requests[1]!);
  assert.match(given, /shop\/tax\.py, lines 120-\d+ \(the file ends at line \d+\):\n120 \| /);
  assert.match(given, /return amount \* RATE/);
});

test("the round is within the run's budget: past it, the run stops instead of asking again", async () => {
  const code = await openCode(repo(), { cacheDir: null });
  const server = await startScriptedModel((_req, i) =>
    i === 0 ? '<more_lines file="shop/tax.py" from="1" to="4"/>' : FIX,
  );
  const m = makeTestModel(server.baseURL, { budget: { tokens: 1 } });
  try {
    await assert.rejects(
      runPatchWriter(m.model, code.engine, { issue: ISSUE, locations: LOCATIONS, history: [] }),
      (err: unknown) => err instanceof BudgetExceeded,
    );
    assert.equal(server.requests.length, 1, "no request past the budget");
  } finally {
    await server.close();
  }
});

test("requests are read from the answer as written, and nothing else is taken for one", () => {
  assert.deepEqual(
    parseMoreLines('<more_lines file="a/b.py" from="3" to="9"/> and <more_lines from=1 to=2 file=c.js>'),
    {
      requests: [
        { file: "a/b.py", from: 3, to: 9 },
        { file: "c.js", from: 1, to: 2 },
      ],
      malformed: [],
    },
  );
  assert.deepEqual(parseMoreLines("<original>\nmore_lines = 3\n</original>").requests, []);
  assert.equal(parseMoreLines('<more_lines file="a.py"/>').malformed.length, 1);
});
