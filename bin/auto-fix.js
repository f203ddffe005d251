#!/usr/bin/env node
// Entry point for `npx auto-fix`. The sources are TypeScript run directly by Node (type stripping).
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `auto-fix needs Node.js >= 22.18 (this is ${process.versions.node}): run it as 'scripts/with-node npx auto-fix', or install Node 22.18 or later.\n`,
  );
  process.exit(2);
}
// Compiled code, the TypeScript sources' stripped form included, is kept between runs in auto-fix's
// own cache folder (src/index/cache.ts defaultCacheDir, src/core/compile-cache.ts): a run starts
// without compiling its sources again. A folder that cannot be used only means no cache.
{
  const { enableCompileCache } = await import("node:module");
  const { homedir } = await import("node:os");
  const { join } = await import("node:path");
  const env = process.env;
  const home = env.AUTO_FIX_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "auto-fix");
  try {
    enableCompileCache(join(home, "node-compile-cache"));
  } catch {
    // no cache: every run compiles its sources, as without one
  }
}
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
