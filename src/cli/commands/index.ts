import { UserError } from "../../core/errors.ts";
import { defaultCacheDir } from "../../index/cache.ts";
import { buildIndex } from "../../index/index.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliIO } from "../main.ts";
import { indexProgress } from "../progress.ts";

/** `auto-fix index <dir> [--json]`: index a repository and print its counts. */
export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const dir = args.positionals[0];
  if (!dir || args.positionals.length > 1) throw new UserError("expected one <dir>");
  const verbose = args.flag("verbose");
  const progress = indexProgress(io);
  let index: Awaited<ReturnType<typeof buildIndex>>;
  try {
    index = await buildIndex(dir, {
      cacheDir: defaultCacheDir(io.env),
      onProgress: progress.onProgress,
      onNote: (n) => {
        if (!verbose) return;
        progress.finish();
        io.stderr(`note: ${n}\n`);
      },
    });
  } finally {
    progress.finish();
  }
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
  if (args.flag("json")) {
    io.stdout(`${JSON.stringify(out)}\n`);
  } else {
    io.stdout(
      `${s.files} files (${(s.bytes / 1024 / 1024).toFixed(2)} MB): ${s.classes} classes, ${s.functions} functions, ` +
        `${s.methods} methods in ${s.seconds.toFixed(2)} s (cache: ${s.cache}, ${s.cachedFiles} cached, ${s.parsedFiles} parsed${s.workerFiles > 0 ? `, ${s.workerFiles} read by parse workers` : ""})\n`,
    );
  }
  return 0;
}
