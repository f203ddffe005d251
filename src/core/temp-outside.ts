import { realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { relative } from "node:path";
import { UserError } from "./errors.ts";

/**
 * The folder private copies are made in (the system's temporary folder), after checking that it is not
 * inside `src`: a tree cannot be copied into itself.
 */
export async function tempParentOutside(src: string, parent: string = tmpdir()): Promise<string> {
  const realSrc = await realpath(src);
  const realParent = await realpath(parent);
  const rel = relative(realSrc, realParent);
  if (rel === "" || !(rel.startsWith("..") || rel.startsWith("/"))) {
    throw new UserError(
      `${src} contains the temporary folder ${realParent}, so it cannot be copied there; point auto-fix at the repository itself, or set TMPDIR to a folder outside it`,
    );
  }
  return parent;
}
