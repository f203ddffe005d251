import type { RunnerCommand } from "../parts/command.ts";
import { DOTTED, sizedTarget } from "../shared/command-words.ts";
import type { JUnitTool } from "./tools.ts";

const has = (words: readonly string[], w: string): boolean => words.includes(w);

/** What the three tools share: test classes named by their dotted names, and no scope of their own. */
const shared: Omit<
  RunnerCommand,
  "title" | "spelled" | "namedAt" | "ownReports" | "targetedWords" | "refusesSuite" | "quietTemplate"
> = {
  argsAfter: () => -1,
  takesScriptArgs: false,
  targetForm: "dotted",
  suiteKind: "java",
  singleTestId: () => false,
  targetWord: "test class",
  validTarget: (t) => sizedTarget(t) && DOTTED.test(t),
  targetArgs: (targets) => [...targets],
  valueOptions: new Set(),
  listingWords: (words) => [...words],
  // They write JUnit reports anyway (`ownReports`): the command runs as it is.
  suiteWords: (words) => ({ words: [...words] }),
  scope: () => null,
  inScope: () => true,
  installedVersion: () => ({
    version: null,
    major: null,
    source: "the JUnit tools are run as they are: auto-fix adds no report option to them",
  }),
};

/** JUnitCore (`org.junit.runner.JUnitCore`) prints only the tests that failed. */
const JUNIT_CORE = /\bJUnitCore\b/;
const QUIET = "JUnitCore prints only the tests that failed";

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const command: Readonly<Record<JUnitTool, RunnerCommand>> = {
  maven: {
    ...shared,
    title: "Maven",
    spelled: true,
    namedAt: (words) => (/(^|\/)mvnw?$/.test(words[0] ?? "") && has(words, "test") ? 0 : -1),
    ownReports: ["target/surefire-reports/TEST-*.xml", "**/target/surefire-reports/TEST-*.xml"],
    refusesSuite: () => null,
    quietTemplate: null,
    targetedWords: (words, targets) => ({
      words: words.filter((w) => !w.startsWith("-Dtest=")),
      args: [
        `-Dtest=${targets.join(",")}`,
        "-Dsurefire.failIfNoSpecifiedTests=false",
        "-DfailIfNoTests=false",
      ],
    }),
  },
  gradle: {
    ...shared,
    title: "Gradle",
    spelled: true,
    namedAt: (words) => (/(^|\/)gradlew?$/.test(words[0] ?? "") && has(words, "test") ? 0 : -1),
    ownReports: ["build/test-results/test/*.xml", "**/build/test-results/test/*.xml"],
    refusesSuite: () => null,
    quietTemplate: null,
    targetedWords: (words, targets) => ({ words: [...words], args: targets.flatMap((t) => ["--tests", t]) }),
  },
  junit: {
    ...shared,
    title: "JUnit",
    spelled: false,
    // Plain JUnit is named by the configuration (`validation.runner: junit`), never told from a command.
    namedAt: () => -1,
    ownReports: [],
    refusesSuite: (command) =>
      JUNIT_CORE.test(command)
        ? `${QUIET}; name the JUnit XML reports the test command writes (\`test-reports\`)`
        : null,
    quietTemplate: QUIET,
    targetedWords: () => ({
      reason: "JUnit runs need a `validation.command` template naming where the classes go ({tests})",
    }),
  },
};
