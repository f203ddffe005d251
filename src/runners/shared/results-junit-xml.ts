import { type ParsedTests, put, putFile, type TestOutcome } from "./results-outcomes.ts";
import { capHead, capId } from "./results-text-scan.ts";

/** Most `<testsuite>`s a test case's id names, outermost first. */
const MAX_SUITE_DEPTH = 32;

/** Most characters of one JUnit report read; the rest is cut (the result's note says so). */
export const MAX_JUNIT_CHARS = 16 * 1024 * 1024;

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" };

/** The five predefined XML entities, decoded in one pass (`&amp;lt;` stays `&lt;`). */
function decodeXml(s: string): string {
  if (!s.includes("&")) return s;
  let out = "";
  let from = 0;
  for (let i = s.indexOf("&"); i !== -1; i = s.indexOf("&", i + 1)) {
    // The longest entity name is 4 characters: look no further for its `;`.
    let semi = -1;
    for (let k = i + 2; k <= i + 5 && k < s.length; k++) {
      if (s[k] === ";") {
        semi = k;
        break;
      }
    }
    if (semi < 0) continue;
    const rep = ENTITIES[s.slice(i + 1, semi)];
    if (rep === undefined) continue;
    out += s.slice(from, i) + rep;
    from = semi + 1;
    i = semi;
  }
  return out + s.slice(from);
}

/** The value of attribute `name` in a tag's attribute text (`name="…"`, or single quotes), or "". */
function attribute(attrs: string, name: string): string {
  for (let i = attrs.indexOf(name); i !== -1; i = attrs.indexOf(name, i + 1)) {
    const before = attrs[i - 1];
    if (before !== undefined && before !== " " && before !== "\t" && before !== "\n" && before !== "\r")
      continue;
    let j = i + name.length;
    while (attrs[j] === " ") j++;
    if (attrs[j] !== "=") continue;
    j++;
    while (attrs[j] === " ") j++;
    const q = attrs[j];
    if (q !== '"' && q !== "'") continue;
    const end = attrs.indexOf(q, j + 1);
    if (end < 0) return "";
    return decodeXml(attrs.slice(j + 1, end));
  }
  return "";
}

/** Whether `body` holds an element `<tag` followed by a non-name character. */
function hasElement(body: string, tag: string): boolean {
  const open = `<${tag}`;
  for (let i = body.indexOf(open); i !== -1; i = body.indexOf(open, i + 1)) {
    const c = body[i + open.length];
    if (c === undefined || !/[\w:.-]/.test(c)) return true;
  }
  return false;
}

/**
 * The `<testsuite>`s open at a position of a report (not `<testsuites>`), found in one left-to-right pass
 * as the positions asked for grow: a tag is found with indexOf and ends at the next `>` (none left: no
 * tag after it). The names kept are capped, and so is the depth (deeper suites are counted, not kept).
 */
class OpenSuites {
  private readonly text: string;
  private readonly suites: string[] = [];
  private deeper = 0;
  private scan = 0;
  // The next opening and closing tags at or after `scan` (-1: none left), each searched for again only
  // once the scan has passed it: the text is searched once per needle.
  private open: number;
  private close: number;

  constructor(text: string) {
    this.text = text;
    this.open = text.indexOf("<testsuite");
    this.close = text.indexOf("</testsuite>");
  }

  /** The names of the suites open at `pos` (not before the last position asked), outermost first. */
  at(pos: number): readonly string[] {
    const text = this.text;
    while (this.scan < pos) {
      if (this.open >= 0 && this.open < this.scan) this.open = text.indexOf("<testsuite", this.scan);
      if (this.close >= 0 && this.close < this.scan) this.close = text.indexOf("</testsuite>", this.scan);
      const { open, close } = this;
      if ((open < 0 || open >= pos) && (close < 0 || close >= pos)) {
        this.scan = pos;
        break;
      }
      if (close >= 0 && (open < 0 || close < open)) {
        if (this.deeper > 0) this.deeper--;
        else this.suites.pop();
        this.scan = close + "</testsuite>".length;
        continue;
      }
      const c = text[open + "<testsuite".length];
      const gt = text.indexOf(">", open);
      if (gt < 0) {
        this.scan = text.length;
        break;
      }
      this.scan = gt + 1;
      if (c !== undefined && !/[\s>/]/.test(c)) continue;
      if (text[gt - 1] === "/") continue;
      if (this.suites.length >= MAX_SUITE_DEPTH) this.deeper++;
      else this.suites.push(capId(attribute(text.slice(open + "<testsuite".length, gt), "name")));
    }
    return this.suites;
  }
}

/**
 * JUnit XML (surefire, gradle, pytest --junitxml, jest-junit, node --test's junit reporter): every
 * `<testcase>` and its outcome, and the `file` it names when it names one (into `files`).
 * One left-to-right pass: each `<testcase` is matched with its `/>` or the next `</testcase>`, and a
 * missing close is found missing once, not once per test case. Reports past MAX_JUNIT_CHARS are cut.
 */
export function parseJUnitXml(
  xml: string,
  into: Map<string, TestOutcome> = new Map(),
  files: Map<string, string[]> = new Map(),
  /**
   * A test case's id from its attributes and the names of the `<testsuite>`s it is in, outermost first
   * (default `classname.name`).
   */
  idOf: (classname: string, name: string, file: string, suites: readonly string[]) => string = (c, n) =>
    [c, n].filter(Boolean).join("."),
): ParsedTests {
  const { text, note } = capHead(xml, MAX_JUNIT_CHARS, "The JUnit report");
  const suites = new OpenSuites(text);
  const OPEN = "<testcase";
  const CLOSE = "</testcase>";
  // Position of the next `</testcase>` at or after the scan; Infinity once there is none left.
  let nextClose = -1;
  let i = text.indexOf(OPEN);
  while (i !== -1) {
    const after = text[i + OPEN.length];
    if (after !== undefined && /[\w:.-]/.test(after)) {
      i = text.indexOf(OPEN, i + 1);
      continue;
    }
    const gt = text.indexOf(">", i + OPEN.length);
    if (gt < 0) break;
    const selfClosing = text[gt - 1] === "/";
    const attrs = text.slice(i + OPEN.length, selfClosing ? gt - 1 : gt);
    let body = "";
    let resume = gt + 1;
    if (!selfClosing) {
      if (nextClose !== Number.POSITIVE_INFINITY && nextClose < gt) {
        const c = text.indexOf(CLOSE, gt);
        nextClose = c < 0 ? Number.POSITIVE_INFINITY : c;
      }
      if (nextClose === Number.POSITIVE_INFINITY) {
        // An unclosed test case ends where the next one starts (or at the end of the report).
        const next = text.indexOf(OPEN, gt);
        body = text.slice(gt + 1, next < 0 ? text.length : next);
        resume = next < 0 ? text.length : next;
      } else {
        const next = text.indexOf(OPEN, gt);
        const end = next >= 0 && next < nextClose ? next : nextClose;
        body = text.slice(gt + 1, end);
        resume = end === nextClose ? nextClose + CLOSE.length : end;
      }
    }
    const file = attribute(attrs, "file");
    const id = idOf(attribute(attrs, "classname"), attribute(attrs, "name"), file, suites.at(i));
    const outcome: TestOutcome =
      hasElement(body, "failure") || hasElement(body, "error")
        ? "failed"
        : hasElement(body, "skipped")
          ? "skipped"
          : "passed";
    if (id !== "") {
      put(into, id, outcome);
      if (file !== "") putFile(files, id, file);
    }
    i = text.indexOf(OPEN, resume);
  }
  return {
    parser: "junit-xml",
    tests: into,
    ...(files.size > 0 ? { files } : {}),
    ...(note ? { note } : {}),
  };
}
