import { parseArgs } from "node:util";
import { UserError } from "../../core/errors.ts";
import { defaultCacheDir } from "../../index/cache.ts";
import { buildIndex } from "../../index/index.ts";
import { formatLocationsForModel } from "../../locate/format.ts";
import { type LocationRequest, resolveBugLocations } from "../../locate/locate.ts";
import type { CliIO } from "../main.ts";

const USAGE = "Usage: auto-fix locate <dir> [--file F] [--class C] [--method M] [--intended TEXT] [--json]";

/** `auto-fix locate <dir> ...`: resolve one bug location to code units (JSON or the model's text). */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw new UserError(`${(err as Error).message}\n${USAGE}`);
  }
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UserError(USAGE);
  const v = parsed.values;
  if (!v.file && !v.class && !v.method)
    throw new UserError(`give at least one of --file, --class, --method\n${USAGE}`);
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

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      file: { type: "string" },
      class: { type: "string" },
      method: { type: "string" },
      intended: { type: "string" },
      json: { type: "boolean" },
    },
  });
}
