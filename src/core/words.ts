/** Words for people: a count with its noun in the right number ("1 test", "2 tests"), never "test(s)". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** A verb agreeing with a count's noun: `verb(1, "passes", "pass")` is "passes", with 2 "pass". */
export function verb(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}
