import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { computePatch, createDiskRepo, writePatch } from "../../patch/index.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliIO } from "../main.ts";

/** `auto-fix apply <dir> <response-file> [--json] [--write] [--protect GLOB]...` */
export async function run(parsed: ParsedArgs, io: CliIO): Promise<number> {
  const { positionals } = parsed;
  const values = { json: parsed.flag("json"), write: parsed.flag("write"), protect: parsed.list("protect") };
  if (positionals.length !== 2) throw new UserError("expected <dir> and <response-file>");
  const dir = resolve(io.cwd, positionals[0]!);
  const responseFile = resolve(io.cwd, positionals[1]!);
  const st = await stat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new UserError(`${positionals[0]} is not a directory`);
  let answer: string;
  try {
    answer = await readFile(responseFile, "utf8");
  } catch (err) {
    throw new UserError(
      `cannot read ${positionals[1]}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  const result = await computePatch(createDiskRepo(dir), answer, { protectedGlobs: values.protect });
  let written = false;
  if (values.write && result.status === "APPLICABLE_PATCH") {
    try {
      await writePatch(dir, result);
      written = true;
    } catch (err) {
      throw new UserError(`the patch applies but could not be written: ${(err as Error).message}`, 1);
    }
  }
  if (values.json) {
    io.stdout(`${JSON.stringify({ status: result.status, diff: result.diff, edits: result.edits })}\n`);
  } else {
    const out: string[] = [`status: ${result.status}`];
    result.edits.forEach((e, i) => {
      out.push(
        `edit ${i + 1} ${e.file || "(no file)"}: ${e.status}\n  ${e.message.replaceAll("\n", "\n  ")}`,
      );
    });
    if (result.edits.length === 0) out.push(result.feedback);
    if (result.diff) out.push("", result.diff.trimEnd());
    if (result.status === "APPLICABLE_PATCH") {
      out.push(
        written
          ? `wrote ${result.changedFiles.length} file(s).`
          : "(dry run: nothing written; pass --write to write)",
      );
    }
    io.stdout(`${out.join("\n")}\n`);
  }
  return result.status === "APPLICABLE_PATCH" ? 0 : 1;
}
