/** Lines (1-based, at most 5) of `from..to` where `name` stands as a whole word. */
export function linesNaming(lines: readonly string[], name: string, from: number, to: number): number[] {
  const bare = name.slice(name.lastIndexOf(".") + 1);
  if (!/^[A-Za-z_$][\w$]*$/.test(bare)) return [];
  const word = new RegExp(`(?<![\\w$])${bare.replaceAll("$", "\\$")}(?![\\w$])`);
  const out: number[] = [];
  for (let n = Math.max(1, from); n <= Math.min(to, lines.length) && out.length < 5; n++)
    if (word.test(lines[n - 1]!)) out.push(n);
  return out;
}
