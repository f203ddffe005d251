import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Debian's cargo: the one the sandbox's PATH (/usr/bin) finds. */
export const CARGO = "/usr/bin/cargo";
export const noCargo =
  !existsSync(CARGO) && "cargo is not installed in /usr/bin (scripts/install.sh --test-tools)";

/** A small crate: a library with a unit test module and an integration test file; `slug` has a bug. */
export const SHOP: Record<string, string> = {
  "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  "src/lib.rs":
    "pub fn slug(s: &str) -> String {\n    s.to_lowercase().replacen(' ', \"-\", 1)\n}\n\npub fn total(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(total(1, 2), 3);\n    }\n}\n",
  "tests/slug.rs":
    'use shop::slug;\n\n#[test]\nfn one_space() {\n    assert_eq!(slug("A B"), "a-b");\n}\n\n#[test]\nfn many_words() {\n    assert_eq!(slug("A B C"), "a-b-c");\n}\n',
};

/** The one-line fix of SHOP's bug. */
export const SHOP_BUG = { file: "src/lib.rs", from: "replacen(' ', \"-\", 1)", to: "replace(' ', \"-\")" };

/** Writes `files` into a fresh folder. */
export function writeCrate(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "cargo-crate-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

/** `cargo <args>` in `root`, offline, with its own target folder; stdout and stderr apart. */
export function cargo(
  root: string,
  args: string[],
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(CARGO, args, {
    cwd: root,
    encoding: "utf8",
    timeout: 300_000,
    env: { PATH: "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", CARGO_TERM_COLOR: "never" },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
