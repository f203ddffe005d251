/**
 * cargo test's check tests: an integration test file `tests/<token>.rs` (cargo builds every file of
 * `tests/` as a test binary of its own, nothing is added to the command), with one test that writes the
 * proof beside itself (cargo runs it from the crate's root) and one that fails through `assert_eq!` as the crate's tests do. They call no code of the crate:
 * an integration test builds whether the crate has a library target or not.
 */
import type { TreeFs } from "../../core/tree-fs.ts";
import type {
  CanaryRules,
  CanarySource,
  NoCanaries,
  RunnerCanaries,
  SourceInput,
  Spot,
  SpotInput,
} from "../parts/canaries.ts";
import { CANARY_DEFAULTS, deselectingAfter } from "../shared/canaries-args.ts";
import { cargoTestAt } from "./command.ts";

/** Options that could leave the check tests out: a target selection, a test-name filter, `--no-run`. */
const DESELECTING =
  /^(--(lib|bins?|examples?|tests?|benches?|doc|all-targets|no-run|exact|skip|ignored|include-ignored|list)(=.*)?|-p|--package|--workspace|--exclude)$/;

/** Why a crate's `Cargo.toml` does not take a `tests/` file as its own test binary, or null. */
function manifestRefuses(tree: TreeFs): string | null {
  let text: string;
  try {
    text = tree.read("Cargo.toml", { maxBytes: 1024 * 1024 }).toString("utf8");
  } catch {
    return "the repository has no readable Cargo.toml at its root";
  }
  if (!/^\s*\[package\]/m.test(text))
    return "the root Cargo.toml is a workspace without a package of its own: its members' tests/ folders are not told apart";
  if (/^\s*autotests\s*=\s*false/m.test(text))
    return "the crate lists its test binaries itself (autotests = false): a new tests/ file would not run";
  return null;
}

/** One file in `tests/`, found by cargo's own rules; a test-name filter would leave it out. */
function spot({ tree, words, valueOptions }: SpotInput): Spot | NoCanaries {
  const why = manifestRefuses(tree);
  if (why) return { unverified: why };
  const at = cargoTestAt(words);
  const sep = words.indexOf("--");
  const head = sep < 0 ? words : words.slice(0, sep);
  for (let i = at + 1; i < head.length; i++) {
    const w = head[i]!;
    if (w.startsWith("-")) {
      if (valueOptions.has(w)) i++;
    } else
      return { unverified: `the command filters tests by name (\`${w}\`): the check tests would not run` };
  }
  return { dirs: ["tests"], args: () => [] };
}

/** The check tests' file, `tests/<token>.rs`. */
function source(input: SourceInput): CanarySource {
  const passName = input.token;
  const failName = `${input.token}_${input.other}`;
  const sample = input.tree
    .list(input.dir)
    .filter((e) => e.kind === "file" && e.name.endsWith(".rs"))
    .map((e) => e.name)
    .sort()[0];
  const text = [
    "use std::io::Write;",
    "",
    "#[test]",
    `fn ${passName}() {`,
    "    let mut f = std::fs::OpenOptions::new()",
    "        .create(true)",
    "        .append(true)",
    `        .open(concat!(env!("CARGO_MANIFEST_DIR"), ${JSON.stringify(`/${input.dir}/${input.proofName}`)}))`,
    '        .expect("open the proof file");',
    `    f.write_all(${JSON.stringify(`${input.proofValue}\n`)}.as_bytes())`,
    '        .expect("write the proof file");',
    "}",
    "",
    "#[test]",
    `fn ${failName}() {`,
    `    assert_eq!(${JSON.stringify(input.other)}, ${JSON.stringify(input.impossible)});`,
    "}",
    "",
  ].join("\n");
  return {
    name: `${input.token}.rs`,
    text,
    passName,
    failName,
    ...(sample ? { sample: `${input.dir}/${sample}` } : {}),
  };
}

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, cargoTestAt),
  spot,
  source,
  // Each integration test file is a test binary of its own.
  ownProcessPerFile: true,
  // libtest exits 101 when a test failed.
  failExitCode: () => 101,
  // Only the check tests' binary failed, with one failed test: `test result: FAILED. n passed; 1 failed`.
  onlyOneFailed: (output) => {
    const failed = output.match(/^test result: FAILED\. \d+ passed; (\d+) failed;/gm) ?? [];
    return failed.length === 1 && /; 1 failed;/.test(failed[0]!) && !/could not compile/.test(output);
  },
  stoppedBeforeTests: ({ forged, misreported, stdout }) =>
    !forged && !misreported && /error: could not compile|error\[E\d{4}\]/.test(stdout)
      ? "the crate's tests did not build, so its check tests could not run (the build's failure is counted)"
      : null,
};

export const canaries: RunnerCanaries = { canaries: rules };
