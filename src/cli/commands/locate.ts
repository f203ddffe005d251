import { UserError } from "../../core/errors.ts";
import { defaultCacheDir } from "../../index/cache.ts";
import { buildIndex } from "../../index/index.ts";
import { formatLocationsForModel } from "../../locate/format.ts";
import { type LocationRequest, resolveBugLocations } from "../../locate/locate.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliIO } from "../main.ts";

/** `auto-fix locate <dir> ...`: resolve one bug location to code units (JSON or the model's text). */
export async function run(parsed: ParsedArgs, io: CliIO): Promise<number> {
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UserError("expected one <dir>");
  const v = {
    file: parsed.string("file"),
    class: parsed.string("class"),
    method: parsed.string("method"),
    intended: parsed.string("intended"),
    json: parsed.flag("json"),
  };
  if (!v.file && !v.class && !v.method) throw new UserError("give at least one of --file, --class, --method");
  const req: LocationRequest = {};
  if (v.file) req.file = v.file;
  if (v.class) req.class = v.class;
  if (v.method) req.method = v.method;
  if (v.intended) req.intended_behavior = v.intended;
  const index = await buildIndex(dir, { cacheDir: defaultCacheDir(io.env) });
  const locs = await resolveBugLocations(index, [req]);
  if (v.json) {
    io.stdout(
      `${JSON.stringify({ ok: locs.length > 0, locations: [...locs], unresolved: locs.unresolved })}\n`,
    );
  } else {
    io.stdout(`${formatLocationsForModel(locs)}\n`);
  }
  return locs.length > 0 ? 0 : 1;
}
