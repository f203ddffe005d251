import assert from "node:assert/strict";
import { test } from "node:test";
import { MetricsRegistry } from "../../src/ops/metrics.ts";

test("counters, histograms and gauges render in the Prometheus text format", async () => {
  const r = new MetricsRegistry();
  const c = r.counter("autofix_things_total", "Things.\nSecond line");
  c.inc({ reason: 'quote " back \\ nl \n' });
  c.inc({ reason: "plain" }, 2);
  c.inc({ reason: "plain" }, -5);
  const h = r.histogram("autofix_wait_seconds", "Waits.", [1, 0.5]);
  h.observe({ stage: "a" }, 0.2);
  h.observe({ stage: "a" }, 0.7);
  h.observe({ stage: "a" }, 3);
  r.gauge("autofix_jobs", "Jobs.", async () => [{ labels: { state: "queued" }, value: 4 }]);
  r.gauge("autofix_broken", "Broken.", async () => {
    throw new Error("store down");
  });
  const text = await r.render();
  const lines = text.trim().split("\n");
  assert.ok(lines.includes("# HELP autofix_things_total Things.\\nSecond line"));
  assert.ok(lines.includes("# TYPE autofix_things_total counter"));
  assert.ok(lines.includes('autofix_things_total{reason="quote \\" back \\\\ nl \\n"} 1'));
  assert.ok(lines.includes('autofix_things_total{reason="plain"} 2'), "negative increments are ignored");
  assert.ok(lines.includes("# TYPE autofix_wait_seconds histogram"));
  assert.ok(lines.includes('autofix_wait_seconds_bucket{stage="a",le="0.5"} 1'));
  assert.ok(lines.includes('autofix_wait_seconds_bucket{stage="a",le="1"} 2'));
  assert.ok(lines.includes('autofix_wait_seconds_bucket{stage="a",le="+Inf"} 3'));
  assert.ok(lines.includes('autofix_wait_seconds_sum{stage="a"} 3.9'));
  assert.ok(lines.includes('autofix_wait_seconds_count{stage="a"} 3'));
  assert.ok(lines.includes('autofix_jobs{state="queued"} 4'));
  assert.ok(!text.includes("autofix_broken"), "a failing collector is left out, not fatal");
  assert.ok(text.endsWith("\n"));
  assert.throws(() => r.counter("bad name", "x"), /invalid metric name/);
  assert.equal(r.counter("autofix_things_total", "again"), c, "registering twice returns the same counter");
});
