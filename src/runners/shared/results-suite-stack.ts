import { capId } from "./results-text-scan.ts";

/**
 * A stack of enclosing suites whose joined prefix is kept per level, cut to the id cap, so that a
 * test line costs the same however deep it is nested.
 */
export class SuiteStack {
  private levels: { indent: number; prefix: string; name: string }[] = [];
  private root = "";
  reset(root: string): void {
    this.root = root;
    this.levels.length = 0;
  }
  /** Leaves the suites at `indent` or deeper (`strict`: deeper only). */
  popTo(indent: number, strict = false): void {
    const l = this.levels;
    while (l.length > 0 && (strict ? l[l.length - 1]!.indent > indent : l[l.length - 1]!.indent >= indent))
      l.pop();
  }
  prefix(): string {
    return this.levels.length > 0 ? this.levels[this.levels.length - 1]!.prefix : this.root;
  }
  join(name: string): string {
    const p = this.prefix();
    return capId(p === "" ? name : name === "" ? p : `${p} > ${name}`);
  }
  /** Leaves every suite: back to the file header. */
  toRoot(): void {
    this.levels.length = 0;
  }
  push(indent: number, name: string): void {
    this.levels.push({ indent, prefix: this.join(name), name });
  }
  /** Whether a line at `indent` naming `name` is the innermost suite's own closing line. */
  closes(indent: number, name: string): boolean {
    const t = this.levels[this.levels.length - 1];
    return t !== undefined && t.indent === indent && t.name === name;
  }
  top(): { indent: number } | undefined {
    return this.levels[this.levels.length - 1];
  }
  pop(): void {
    this.levels.pop();
  }
}
