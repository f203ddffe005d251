import { existsSync, readFileSync } from "node:fs";
import { join as joinPath, posix } from "node:path";
import type { RunnerConventions } from "../parts/conventions.ts";
import {
  baseName,
  collectVerdicts,
  exampleOf,
  freshPath,
  isDir,
  listDir,
} from "../shared/conventions-files.ts";

/** libtest's per-test lines: `test tests::adds ... ok`. */
const RESULT_LINE = /^test (\S+) \.\.\. (ok|FAILED|ignored)/gm;

/** Where cargo is looked for: the sandbox's PATH is /usr/bin (a rustup install in a home is not seen). */
const CARGO_PATHS = ["/usr/bin/cargo", "/usr/local/bin/cargo"];

/** The root manifest's text ("" when unreadable or too large). */
function manifest(root: string): string {
  try {
    const text = readFileSync(joinPath(root, "Cargo.toml"), "utf8");
    return text.length > 1024 * 1024 ? "" : text;
  } catch {
    return "";
  }
}

/** The crate's library name as Rust code uses it (`[lib] name`, else the package's, `-` as `_`), or null without a library. */
export function libraryName(root: string): string | null {
  const text = manifest(root);
  const lib = /^\s*\[lib\]\s*$([\s\S]*?)(?=^\s*\[|(?![\s\S]))/m.exec(text);
  const hasLib = lib !== null || existsSync(joinPath(root, "src", "lib.rs"));
  if (!hasLib) return null;
  const named = lib ? /^\s*name\s*=\s*"([A-Za-z0-9_-]{1,100})"/m.exec(lib[1]!) : null;
  const pkg = /^\s*\[package\]\s*$[\s\S]*?^\s*name\s*=\s*"([A-Za-z0-9_-]{1,100})"/m.exec(text);
  const name = named?.[1] ?? pkg?.[1];
  return name ? name.replaceAll("-", "_") : null;
}

export const conventions: RunnerConventions = {
  label: "cargo test",
  languages: ["rust"],
  markFiles: ["Cargo.toml"],
  recognise: (files, installed) => {
    if (!files.has("Cargo.toml")) return null;
    const missing = installed()
      ? []
      : [
          "cargo is not installed where the tests run (the sandbox finds /usr/bin/cargo: Debian's cargo and rustc packages; a rustup install in a home folder is not seen)",
        ];
    const vendored = files.has("vendor") || files.has(".cargo/config.toml") || files.has(".cargo/config");
    return {
      testCommand: "cargo test --offline",
      // Dependencies come from the tree (vendored crates, path dependencies) or the machine's registry
      // cache: nothing is fetched, and a crate that needs the network says so.
      ...(files.has("Cargo.lock") || vendored ? { setup: ["cargo fetch --offline"] } : {}),
      reasons: ["tests: cargo test (Cargo.toml)", "builds offline: cargo's --offline", ...missing],
    };
  },
  installed: () => CARGO_PATHS.some((p) => existsSync(p)),
  regressionDefault: true,
  regression: {
    plan(root, changed) {
      if (!changed.some((f) => f.endsWith(".rs")))
        return { ok: false, reason: "the patch changes no Rust file of the crate" };
      const crate = libraryName(root);
      if (!crate)
        return {
          ok: false,
          reason:
            "the crate has no library target (src/lib.rs): an integration test cannot call its code, and a #[cfg(test)] module would edit an existing file",
        };
      const file = changed.find((f) => f.endsWith(".rs"))!;
      const path = freshPath(root, `tests/${baseName(file)}_regression.rs`);
      if (!path) return { ok: false, reason: "no free file name in tests/" };
      const existing = isDir(root, "tests")
        ? listDir(root, "tests")
            .filter((f) => f.endsWith(".rs"))
            .sort()
        : [];
      const stem = posix.basename(path, ".rs");
      const inline = existing.length === 0;
      return {
        ok: true,
        plan: {
          runner: "cargo",
          framework: "cargo test",
          language: "Rust",
          tags: ["rust", "rs"],
          path,
          command: `cargo test --offline --test ${stem}`,
          notes: `An integration test file: use the crate as \`${crate}\` (\`use ${crate}::...;\`, public items only), with \`#[test] fn name()\` functions that check with \`assert_eq!\`/\`assert!\`. The build is offline: use no crate the Cargo.toml does not list.${inline ? " The crate's own tests are #[cfg(test)] modules in its source files: test the same behaviour through its public API." : ""}`,
          example: existing[0] ? exampleOf(root, `tests/${existing[0]}`) : null,
        },
      };
    },
    verdicts: (output) =>
      collectVerdicts(output, RESULT_LINE, (m) => [
        m[1]!,
        m[2] === "ok" ? "pass" : m[2] === "ignored" ? "skip" : "fail",
      ]),
    testsRan: (output) => /^running [1-9]\d* tests?$/m.test(output),
    notLoaded: (output) =>
      /error: could not compile|error\[E\d{4}\]/.test(output) ? "the test file did not compile" : null,
  },
  // The patch scan has no Rust family yet: these are what it would watch in Rust code.
  watched: {
    libraries: [],
    objects: [],
    extensions: [],
    names: [],
    variables: [/\bRUST_TEST_THREADS\b/, /\bCARGO_TARGET_TMPDIR\b/],
  },
};
