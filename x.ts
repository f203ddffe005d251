import { buildIndex } from "./src/index/index.ts";
import { SearchApis } from "./src/search/search-api.ts";
for (const lang of ["rust", "cpp"]) {
  const idx = await buildIndex(`test/fixtures/repos/${lang}`, { cacheDir: null, workers: 0 });
  const a = new SearchApis(idx, { includeTests: false });
  for (const f of idx.files) console.log(f.path, f.language, f.isTest, f.symbols.map(s => `${s.kind}:${s.qualName}`).join(" "));
  const calls: [string, string[]][] = lang === "rust"
    ? [["search_class", ["Inventory"]], ["search_method_in_class", ["take", "Inventory"]], ["search_method", ["lines"]], ["search_class", ["Volume"]], ["search_method_in_class", ["litres", "Tube"]], ["search_method", ["sku"]], ["search_class", ["order::Line"]]]
    : [["search_class", ["Buffer"]], ["search_method_in_class", ["line", "Buffer"]], ["search_method_in_class", ["append", "textkit::Buffer"]], ["search_method", ["words"]], ["search_method", ["is_space"]]];
  for (const [api, args] of calls) {
    const r = await a.call(api, args);
    console.log(`=== ${api}(${args})`, r.ok, JSON.stringify(r.results));
    console.log(r.text.slice(0, 1500));
  }
}
