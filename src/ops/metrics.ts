/**
 * A small Prometheus registry: counters, histograms and gauges read at scrape time, rendered in the text
 * exposition format (version 0.0.4).
 */

export type Labels = Record<string, string>;

interface Series<T> {
  labels: Labels;
  value: T;
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function labelKey(labels: Labels): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

function renderLabels(labels: Labels, extra?: [string, string]): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k] ?? "")}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Number.POSITIVE_INFINITY) return "+Inf";
  if (n === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(n);
}

export class Counter {
  readonly name: string;
  readonly help: string;
  readonly #series = new Map<string, Series<number>>();
  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }
  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0) || !Number.isFinite(by)) return;
    const key = labelKey(labels);
    const s = this.#series.get(key);
    if (s) s.value += by;
    else this.#series.set(key, { labels: { ...labels }, value: by });
  }
  get(labels: Labels = {}): number {
    return this.#series.get(labelKey(labels))?.value ?? 0;
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} counter`];
    for (const s of this.#series.values())
      out.push(`${this.name}${renderLabels(s.labels)} ${formatNumber(s.value)}`);
    return out;
  }
}

interface HistogramValue {
  buckets: number[];
  sum: number;
  count: number;
}

export class Histogram {
  readonly name: string;
  readonly help: string;
  readonly bounds: number[];
  readonly #series = new Map<string, Series<HistogramValue>>();
  constructor(name: string, help: string, bounds: number[]) {
    this.name = name;
    this.help = help;
    this.bounds = [...bounds].sort((a, b) => a - b);
  }
  observe(labels: Labels, value: number): void {
    if (!Number.isFinite(value)) return;
    const key = labelKey(labels);
    let s = this.#series.get(key);
    if (!s) {
      s = { labels: { ...labels }, value: { buckets: this.bounds.map(() => 0), sum: 0, count: 0 } };
      this.#series.set(key, s);
    }
    this.bounds.forEach((b, i) => {
      if (value <= b) s.value.buckets[i]! += 1;
    });
    s.value.sum += value;
    s.value.count += 1;
  }
  count(labels: Labels = {}): number {
    return this.#series.get(labelKey(labels))?.value.count ?? 0;
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const s of this.#series.values()) {
      this.bounds.forEach((b, i) => {
        out.push(
          `${this.name}_bucket${renderLabels(s.labels, ["le", formatNumber(b)])} ${s.value.buckets[i] ?? 0}`,
        );
      });
      out.push(`${this.name}_bucket${renderLabels(s.labels, ["le", "+Inf"])} ${s.value.count}`);
      out.push(`${this.name}_sum${renderLabels(s.labels)} ${formatNumber(s.value.sum)}`);
      out.push(`${this.name}_count${renderLabels(s.labels)} ${s.value.count}`);
    }
    return out;
  }
}

type GaugeCollector = () => Promise<Array<{ labels: Labels; value: number }>>;

export class Gauge {
  readonly name: string;
  readonly help: string;
  readonly #collect: GaugeCollector;
  constructor(name: string, help: string, collect: GaugeCollector) {
    this.name = name;
    this.help = help;
    this.#collect = collect;
  }
  async render(): Promise<string[]> {
    const out = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} gauge`];
    for (const s of await this.#collect()) {
      out.push(`${this.name}${renderLabels(s.labels)} ${formatNumber(s.value)}`);
    }
    return out;
  }
}

export class MetricsRegistry {
  readonly #metrics = new Map<string, Counter | Histogram | Gauge>();

  #add<T extends Counter | Histogram | Gauge>(m: T): T {
    if (!NAME_RE.test(m.name)) throw new Error(`invalid metric name: ${m.name}`);
    const existing = this.#metrics.get(m.name);
    if (existing) {
      if (existing.constructor !== m.constructor) throw new Error(`metric ${m.name} registered twice`);
      return existing as T;
    }
    this.#metrics.set(m.name, m);
    return m;
  }
  counter(name: string, help: string): Counter {
    return this.#add(new Counter(name, help));
  }
  histogram(name: string, help: string, bounds: number[]): Histogram {
    return this.#add(new Histogram(name, help, bounds));
  }
  /** A gauge whose series are read when scraped (e.g. job counts from the store). */
  gauge(name: string, help: string, collect: GaugeCollector): Gauge {
    this.#metrics.delete(name);
    return this.#add(new Gauge(name, help, collect));
  }
  async render(): Promise<string> {
    const lines: string[] = [];
    for (const m of this.#metrics.values()) {
      try {
        const rendered: string[] = m instanceof Gauge ? await m.render() : m.render();
        lines.push(...rendered);
      } catch {
        // A collector that fails (store unreachable) leaves its metric out; /health reports the cause.
      }
    }
    return `${lines.join("\n")}\n`;
  }
}
