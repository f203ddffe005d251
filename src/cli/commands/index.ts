import { parseArgs } from "node:util";
import { UserError } from "../../core/errors.ts";
import { defaultCacheDir } from "../../index/cache.ts";
import { buildIndex } from "../../index/index.ts";
import type { CliIO } from "../main.ts";

/** `auto-fix index <dir> [--json]`: index a repository and print its counts. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw new UserError(`${(err as Error).message}\nUsage: auto-fix index <dir> [--json]`);
  }
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UserError("Usage: auto-fix index <dir> [--json]");
  const verbose = parsed.values.verbose === true;
  const index = await buildIndex(dir, {
    cacheDir: defaultCacheDir(io.env),
    onNote: (n) => {
      if (verbose) io.stderr(`note: ${n}\n`);
    },
  });
  const s = index.stats;
  const out = {
    files: s.files,
    bytes: s.bytes,
    classes: s.classes,
    functions: s.functions,
    methods: s.methods,
    seconds: s.seconds,
    cache: s.cache,
  };
  if (!verbose && index.notes.length > 0) {
    const shown = index.notes.slice(0, 20);
    for (const n of shown) io.stderr(`note: ${n}\n`);
    if (index.notes.length > shown.length) {
      io.stderr(`note: ... and ${index.notes.length - shown.length} more (use --verbose to see all)\n`);
    }
  }
  if (parsed.values.json) {
    io.stdout(`${JSON.stringify(out)}\n`);
  } else {
    io.stdout(
      `${s.files} files (${(s.bytes / 1024 / 1024).toFixed(2)} MB): ${s.classes} classes, ${s.functions} functions, ` +
        `${s.methods} methods in ${s.seconds.toFixed(2)} s (cache: ${s.cache}, ${s.cachedFiles} cached, ${s.parsedFiles} parsed)\n`,
    );
  }
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: "boolean" }, verbose: { type: "boolean", short: "v" } },
  });
}
