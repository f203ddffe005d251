import { readFileSync } from "node:fs";

/** The mounts of this process's namespace (`/proc/self/mounts`), paths unescaped; none without /proc. */
export function readMounts(): { source: string; target: string; type: string }[] {
  let text: string;
  try {
    text = readFileSync("/proc/self/mounts", "utf8");
  } catch {
    return [];
  }
  const unescapePath = (s: string) =>
    s.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
  const mounts: { source: string; target: string; type: string }[] = [];
  for (const line of text.split("\n")) {
    const [source, target, type] = line.split(" ");
    if (source && target && type)
      mounts.push({ source: unescapePath(source), target: unescapePath(target), type });
  }
  return mounts;
}
