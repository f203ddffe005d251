#!/usr/bin/env node
// Entry point for `npm start`. Plain JavaScript, so that an older Node reads it and says what to do
// instead of failing on the TypeScript sources with ERR_UNKNOWN_FILE_EXTENSION and a stack trace.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `auto-fix needs Node.js >= 22.18 (this is ${process.versions.node}): run it as 'scripts/with-node npm start', or install Node 22.18 or later.\n`,
  );
  process.exit(2);
}
await import("../src/app/start.ts");
