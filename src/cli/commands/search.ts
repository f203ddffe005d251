import { UserError } from "../../core/errors.ts";
import { defaultCacheDir } from "../../index/cache.ts";
import { buildIndex } from "../../index/index.ts";
import { API_SPECS, SearchApis } from "../../search/search-api.ts";
import type { ParsedArgs } from "../args.ts";
import type { CliIO } from "../main.ts";

/** `auto-fix search <dir> <api> [args...]`: run one search API and print what the model would see. */
export async function run(parsed: ParsedArgs, io: CliIO): Promise<number> {
  const [dir, api, ...args] = parsed.positionals;
  const names = API_SPECS.map((s) => s.name).join(", ");
  if (!dir || !api) throw new UserError(`expected <dir> and <api> (one of ${names})`);
  const spec = API_SPECS.find((s) => s.name === api);
  if (!spec) throw new UserError(`unknown search API '${api}'; the APIs are ${names}`);
  if (args.length !== spec.params.length) {
    throw new UserError(
      `${api} takes ${spec.params.length} argument(s): ${api} ${spec.params.map((p) => `<${p}>`).join(" ")} (got ${args.length})`,
    );
  }
  const index = await buildIndex(dir, { cacheDir: defaultCacheDir(io.env) });
  const apis = new SearchApis(index, { includeTests: parsed.flag("include-tests") });
  let result = await apis.call(api, args);
  if (index.files.length === 0) {
    result = {
      ok: false,
      text: `The repository at ${dir} has no indexed source files (Python, JavaScript, TypeScript, Java or Go). ${result.text}`,
      results: [],
    };
  }
  if (parsed.flag("json")) io.stdout(`${JSON.stringify(result)}\n`);
  else io.stdout(`${result.text}\n`);
  return result.ok ? 0 : 1;
}
