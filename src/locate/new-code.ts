import type { SymbolInfo } from "../index/types.ts";
import type { LocationRequest } from "./locate.ts";

/**
 * A location for new code (`add`: the name of what to add; `after`: the member it follows) is resolved
 * as the named code that does not exist yet: its class (or file) is shown with the place it goes. A
 * `method` given beside `add` is the member it goes after, unless `after` says otherwise.
 */
export function newCodeRequest(req: LocationRequest): LocationRequest {
  const add = req.add?.trim();
  if (!add) return req;
  const after = req.after?.trim() || req.method?.trim() || undefined;
  const out: LocationRequest = { ...req, method: add };
  if (after) out.after = after;
  else delete out.after;
  return out;
}

/** What the model is told about new code when the whole unit is shown (no excerpt says it). */
export function newCodeSentence(req: LocationRequest, sym: SymbolInfo | undefined): string {
  if (sym && sym.kind !== "class" && sym.name === req.add)
    return `\`${req.add}\` already exists here: change it rather than add a second one.`;
  const where =
    sym?.kind === "class" ? `to class \`${sym.qualName}\`` : `to the module \`${req.file ?? "?"}\``;
  const after = req.after ? ` after \`${req.after}\`` : "";
  return `New code: add \`${req.add}\` ${where}${after}.`;
}
