import { parseArgs } from "node:util";
import { UserError } from "../../core/errors.ts";
import { defaultCacheDir } from "../../index/cache.ts";
import { buildIndex } from "../../index/index.ts";
import { API_SPECS, SearchApis } from "../../search/search-api.ts";
import type { CliIO } from "../main.ts";

const USAGE = `Usage: auto-fix search <dir> <api> [args...] [--json] [--include-tests]
Put -- before arguments that begin with '-' (auto-fix search . search_code -- "-x").
APIs:
${API_SPECS.map((s) => `  ${s.name} ${s.params.map((p) => `<${p}>`).join(" ")}\n      ${s.description}`).join("\n")}`;

/** `auto-fix search <dir> <api> [args...]`: run one search API and print what the model would see. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw new UserError(`${(err as Error).message}\n${USAGE}`);
  }
  const [dir, api, ...args] = parsed.positionals;
  if (!dir || !api) throw new UserError(USAGE);
  if (!API_SPECS.some((s) => s.name === api)) {
    throw new UserError(`unknown search API '${api}'.\n${USAGE}`);
  }
  const index = await buildIndex(dir, { cacheDir: defaultCacheDir(io.env) });
  const apis = new SearchApis(index, { includeTests: parsed.values["include-tests"] === true });
  let result = await apis.call(api, args);
  if (index.files.length === 0) {
    result = {
      ok: false,
      text: `The repository at ${dir} has no indexed source files (Python, JavaScript, TypeScript, Java or Go). ${result.text}`,
      results: [],
    };
  }
  if (parsed.values.json) io.stdout(`${JSON.stringify(result)}\n`);
  else io.stdout(`${result.text}\n`);
  return result.ok ? 0 : 1;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: "boolean" }, "include-tests": { type: "boolean" } },
  });
}
