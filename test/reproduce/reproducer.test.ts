import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig, parseRepoConfig } from "../../src/config/index.ts";
import { extractScript, judgeReproduction, reproduceIssue } from "../../src/reproduce/index.ts";
import { PATTERN_TAIL_CHARS } from "../../src/reproduce/reproducer.ts";
import {
  createSandbox,
  type ExecResult,
  makeWorkCopy,
  type SandboxPort,
  type WorkCopy,
} from "../../src/sandbox/index.ts";
import type { ScriptRun } from "../../src/sandbox/script-run.ts";
import { startScriptedModel } from "../support/scripted-model.ts";
import { chatModelFor, FIXTURES, fence, promptKind } from "../review/helpers.ts";

let sandbox: SandboxPort;
let copy: WorkCopy;
before(async () => {
  sandbox = await createSandbox("bwrap");
  copy = await makeWorkCopy(join(FIXTURES, "py-shop"));
});
after(() => copy.dispose());

const exec = (over: Partial<ExecResult>): ExecResult => ({
  exitCode: 1,
  signal: null,
  stdout: "",
  stderr: "",
  truncated: false,
  limit: null,
  durationMs: 1,
  backend: "bwrap",
  ...over,
});

/** A run of a custom command, whose ending only its output can tell. */
const byOutput = (over: Partial<ExecResult>): Pick<ScriptRun, "exec" | "ending" | "told"> => ({
  exec: exec(over),
  ending: { how: "unknown", type: null, message: "", assertion: false, chain: [], line: null },
  told: "output",
});

test("a custom command: reproduced = non-zero exit, the pattern in stderr, and no limit", () => {
  assert.equal(
    judgeReproduction(byOutput({ stderr: "AssertionError: x" }), "AssertionError").reproduced,
    true,
  );
  assert.equal(
    judgeReproduction(byOutput({ exitCode: 0, stderr: "AssertionError" }), "AssertionError").reproduced,
    false,
  );
  assert.match(
    judgeReproduction(byOutput({ stderr: "ImportError: x" }), "AssertionError").reason,
    /no AssertionError/,
  );
  assert.match(
    judgeReproduction(byOutput({ exitCode: null, limit: "time", stderr: "AssertionError" }), "AssertionError")
      .reason,
    /time limit/,
  );
  assert.equal(
    judgeReproduction(byOutput({ stderr: "Failure: x" }), "Failure|AssertionError").reproduced,
    true,
  );
});

test("the script is the longest block in the runtime's language", () => {
  const answer =
    "Run:\n```sh\npython3 reproducer.py\n```\nScript:\n```python\nimport x\nassert x.f() == 1\n```\n";
  assert.equal(extractScript(answer, "python"), "import x\nassert x.f() == 1\n");
  assert.equal(extractScript("no code here", "python"), null);
});

test("a reproducer that fails to reproduce gets its output back, then a good one reproduces", async () => {
  const wrong = "from shop.pricing import apply_discount\nprint(apply_discount(100, 10))\n";
  const right =
    "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 90, f'expected 90, got {result}'\n";
  const model = await startScriptedModel((req) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write") return fence("python", wrong);
    if (kind === "repro-feedback") return fence("python", right);
    return { status: 400, body: { error: { message: `unexpected ${kind}` } } };
  });
  try {
    const config = loadRepoConfig(copy.dir);
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "apply_discount(100, 10) returns -900", workdir: copy.dir, topLevel: ["shop/", "tests/"] },
    );
    assert.equal(r.status, "reproduced");
    assert.equal(r.attempts.length, 2);
    assert.equal(r.attempts[0]!.reproduced, false);
    assert.match(r.lead ?? "", /AssertionError: expected 90, got -900/);
    assert.match(r.summary, /attempt 2/);
    const feedback = model.requests[2]!.messages.at(-1)!.content!;
    assert.match(feedback, /exited with status 0/);
    assert.match(feedback, /-900/);
    assert.match(model.requests[1]!.messages.at(-1)!.content!, /reproducer\.py.*python3 reproducer\.py/s);
    assert.equal(model.requests[0]!.response_format?.type, "json_object");
  } finally {
    await model.close();
  }
});

test("no example, never reproduced and a failing stage end the stage without a crash; a refusing endpoint stops the run", async () => {
  const config = loadRepoConfig(copy.dir);
  const noExample = await startScriptedModel(['{"has-reproducible-example": false}']);
  try {
    const r = await reproduceIssue(
      { model: chatModelFor(noExample.baseURL), sandbox, config },
      { issue: "it feels slow", workdir: copy.dir },
    );
    assert.equal(r.status, "no-example");
    assert.equal(r.lead, null);
  } finally {
    await noExample.close();
  }
  const passing = await startScriptedModel((req) =>
    promptKind(req) === "has-example"
      ? '{"has-reproducible-example": "yes"}'
      : fence("python", "print('all fine')\n"),
  );
  try {
    const r = await reproduceIssue(
      { model: chatModelFor(passing.baseURL), sandbox, config },
      { issue: "x", workdir: copy.dir },
    );
    assert.equal(r.status, "not-reproduced");
    assert.equal(r.attempts.length, 3);
    assert.match(r.summary, /not reproduced after 3 attempt/);
  } finally {
    await passing.close();
  }
  // An endpoint that refuses the request stops the run (the pipeline's model port types the refusal):
  // the stage does not turn it into a quiet "not reproduced".
  const broken = await startScriptedModel([{ status: 400, body: { error: { message: "bad request" } } }]);
  try {
    await assert.rejects(
      reproduceIssue(
        { model: chatModelFor(broken.baseURL), sandbox, config },
        { issue: "x", workdir: copy.dir },
      ),
      (err: Error) => err.name === "ModelRequestRejected" && /400 bad request/.test(err.message),
    );
  } finally {
    await broken.close();
  }
  // Any other failure inside the stage (here: the work tree vanished) ends the stage with an error.
  const gone = await startScriptedModel((req) =>
    promptKind(req) === "has-example" ? '{"has-reproducible-example": true}' : fence("python", "print(1)\n"),
  );
  try {
    const r = await reproduceIssue(
      { model: chatModelFor(gone.baseURL), sandbox, config },
      { issue: "x", workdir: join(copy.dir, "no-such-folder") },
    );
    assert.equal(r.status, "error");
    assert.match(r.summary, /reproduce stage failed/);
  } finally {
    await gone.close();
  }
});

test("typescript: a node reproducer imports the .ts sources directly and reproduces in the sandbox", async () => {
  const ts = await makeWorkCopy(new URL("../fixtures/fix/ts-cart/", import.meta.url).pathname);
  const script = [
    'import assert from "node:assert/strict";',
    'import { Cart } from "./src/index.ts";',
    "const cart = new Cart();",
    'cart.add({ name: "pen", price: 2, quantity: 3 });',
    "assert.equal(cart.subtotal(), 6);",
    "",
  ].join("\n");
  const model = await startScriptedModel((req) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    return fence("typescript", script);
  });
  try {
    const config = loadRepoConfig(ts.dir);
    assert.equal(config.reproducer.runtime, "node");
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "subtotal ignores quantity", workdir: ts.dir },
    );
    assert.equal(r.status, "reproduced", r.summary);
    assert.match(r.lead ?? "", /AssertionError[\s\S]*2 !== 6/);
    assert.match(
      model.requests[1]!.messages.at(-1)!.content!,
      /imported directly with their `\.ts` extension/,
    );
  } finally {
    await model.close();
    await ts.dispose();
  }
});

test("java: the main sources are compiled in the sandbox and the single-file reproducer runs against them", async () => {
  const java = await makeWorkCopy(new URL("../fixtures/fix/java-temp/", import.meta.url).pathname);
  const script = [
    "import com.example.Temperature;",
    "public class Reproducer {",
    "  public static void main(String[] args) {",
    "    double f = new Temperature(100).toFahrenheit();",
    '    if (f != 212.0) throw new AssertionError("expected 212.0, got " + f);',
    "  }",
    "}",
    "",
  ].join("\n");
  const model = await startScriptedModel((req) =>
    promptKind(req) === "has-example" ? '{"has-reproducible-example": true}' : fence("java", script),
  );
  try {
    const config = loadRepoConfig(java.dir);
    assert.equal(config.reproducer.runtime, "java");
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "100 C is not 148 F", workdir: java.dir },
    );
    assert.equal(r.status, "reproduced", r.summary);
    assert.match(r.lead ?? "", /java\.lang\.AssertionError: expected 212\.0, got 148\.0/);
  } finally {
    await model.close();
    await java.dispose();
  }
});

test("a crafted reproduction pattern cannot hang the host: linear-time matching, only stderr's tail", () => {
  // Exponential for a backtracking engine on this stderr; linear here.
  const stderr = `${"a".repeat(100_000)}!`;
  const r = judgeReproduction(byOutput({ exitCode: 1, stderr }), "(a|a)*b");
  assert.equal(r.reproduced, false);
  assert.match(r.reason, /stderr shows no/);
  // Backreferences cannot run in linear time: refused with a message naming the configuration key.
  const br = judgeReproduction(byOutput({ exitCode: 1, stderr: "aa" }), "(a)\\1");
  assert.equal(br.reproduced, false);
  assert.match(br.reason, /reproducer\.pattern .*cannot be matched in linear time/);
  // The match is looked for in the last 256 kB of stderr, where a traceback ends.
  const early = `AssertionError: early\n${"x".repeat(PATTERN_TAIL_CHARS)}`;
  assert.equal(
    judgeReproduction(byOutput({ exitCode: 1, stderr: early }), "AssertionError").reproduced,
    false,
  );
  assert.equal(
    judgeReproduction(
      byOutput({ exitCode: 1, stderr: `${"x".repeat(PATTERN_TAIL_CHARS)}\nAssertionError: late` }),
      "AssertionError",
    ).reproduced,
    true,
  );
});

test("a reproduction pattern too long to match quickly is refused, in the configuration and when judging", () => {
  // 20,000 alternatives (about 120 kB, within the configuration file's cap): the linear engine's time is
  // the pattern's size times stderr's, minutes against a 256 kB tail.
  const long = Array.from({ length: 20_000 }, (_, i) => `w${i}x`).join("|");
  assert.throws(
    () => parseRepoConfig(`reproducer:\n  pattern: '${long}'\n`),
    (err: Error) => /reproducer\.pattern: the pattern is \d+ characters long; at most 256/.test(err.message),
  );
  const r = judgeReproduction(byOutput({ exitCode: 1, stderr: "w1x".repeat(100_000) }), long);
  assert.equal(r.reproduced, false);
  assert.match(r.reason, /reproducer\.pattern in the configuration: the pattern is \d+ characters long/);
  // A pattern at the cap still works.
  const capped = `(?:${"AssertionError|".repeat(20)}Fail)`.slice(0, 255).replace(/\|?[^|]*$/, ")");
  assert.ok(capped.length <= 256);
  assert.equal(
    judgeReproduction(byOutput({ exitCode: 1, stderr: "...\nAssertionError: x" }), capped).reproduced,
    true,
  );
});
