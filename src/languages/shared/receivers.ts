/**
 * The class a qualifier names, in the index's dotted form: `ns::Outer<T>::` → `ns.Outer`, `Vec<T>` →
 * `Vec`, `&'a mut S` → `S`. Template and generic arguments are dropped; null for an empty name.
 */
export function dottedQualifier(text: string, keepPath: boolean): string | null {
  let s = text.trim();
  // Generic arguments, nested or not: dropped from the innermost out.
  for (let i = 0; i < 8 && /<[^<>]*>/.test(s); i++) s = s.replace(/<[^<>]*>/g, "");
  s = s.replace(/^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?|dyn\s+|impl\s+|const\s+)+/, "").replace(/::\s*$/, "");
  s = s.replace(/^::/, "");
  const parts = s
    .split("::")
    .map((p) => p.trim())
    .filter((p) => p.length > 0 && /^[A-Za-z_~]\w*$/.test(p));
  if (parts.length === 0) return null;
  return keepPath ? parts.join(".") : parts[parts.length - 1]!;
}
