#!/usr/bin/env node
// Entry point for `npx auto-fix`. The sources are TypeScript run directly by Node (type stripping).
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`auto-fix needs Node.js >= 22.18 (this is ${process.versions.node}).\n`);
  process.exit(2);
}
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
