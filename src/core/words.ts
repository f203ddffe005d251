/** Words for people: a count with its noun in the right number ("1 test", "2 tests"), never "test(s)". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
