/**
 * The container image, built the way docs/deploying.md says (scripts/build-image.sh: a Debian base from
 * debootstrap, Node.js and npm from the npm registry, then the Dockerfile), timed from nothing.
 *
 *   sudo npm run bench:image [-- --keep-base] [--tag auto-fix:bench]
 *
 * Prints the time to make the base, the time of the app image's build, the total, and the image's size
 * as the engine reports it. `--keep-base` reuses a base already built (the time of a rebuild after a
 * change to the app). Needs root and network access to Debian's mirror and the npm registry.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    "keep-base": { type: "boolean", default: false },
    tag: { type: "string", default: "auto-fix:bench" },
  },
});
const script = fileURLToPath(new URL("../scripts/build-image.sh", import.meta.url));
const args = ["--tag", values.tag, ...(values["keep-base"] ? [] : ["--rebuild-base"])];
const started = performance.now();
const output: string[] = [];
const code = await new Promise<number | null>((resolve, reject) => {
  const child = spawn("bash", [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  child.stdout.on("data", (c: Buffer) => {
    process.stdout.write(c);
    output.push(c.toString("utf8"));
  });
  child.on("error", reject);
  child.on("close", resolve);
});
const seconds = (performance.now() - started) / 1000;
if (code !== 0) {
  console.error(`bench:image: scripts/build-image.sh exited ${code}`);
  process.exit(1);
}
const text = output.join("");
const base = /base \S+ ready .* after (\d+) s/.exec(text)?.[1];
const app = /\(app image (\d+) s\)/.exec(text)?.[1];
const bytes = Number(/image size \d+ MB \((\d+) bytes\)/.exec(text)?.[1]);
console.log("\nbench:image");
console.log(`  base (debootstrap + Node.js + import): ${base ? `${base} s` : "reused"}`);
console.log(`  app image (Dockerfile):                ${app ?? "?"} s`);
console.log(`  total:                                 ${seconds.toFixed(0)} s`);
console.log(`  image size:                            ${(bytes / 1e6).toFixed(0)} MB (${bytes} bytes)`);
