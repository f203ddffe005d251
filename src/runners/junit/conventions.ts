import type { RegressionConventions, RunnerConventions, WatchedObjects } from "../parts/conventions.ts";
import type { JUnitTool } from "./tools.ts";

/** A Gradle build's files, in either of its languages. */
const GRADLE_FILES = ["build.gradle", "build.gradle.kts"];

/** Build-file text that configures tests: a pom.xml or Gradle build file holding it is test configuration as a whole. */
const BUILD_TEST_SETTING =
  /\btest\w*|\bTest\b|junit|testng|surefire|failsafe|skipTests|maven\.test|testFailureIgnore|ignoreFailures|useJUnitPlatform|spock/i;

/** Maven's settings: its wrapper, `.mvn/` (maven.config, jvm.config, extensions), pom.xml's test parts. */
const MAVEN_CONFIG = {
  wholeFiles: [/^(mvnw|mvnw\.cmd)$/],
  wholeDirs: [/(^|\/)\.mvn\//],
  buildFiles: [/^pom\.xml$/],
  buildSettings: [BUILD_TEST_SETTING],
} satisfies RunnerConventions["testConfig"];

/** Gradle's settings: its wrapper and its files, build files' test parts. */
const GRADLE_CONFIG = {
  wholeFiles: [/^(gradlew|gradlew\.bat)$/],
  wholeDirs: [/(^|\/)gradle\/wrapper\//],
  buildFiles: [/\.gradle(\.kts)?$/],
  buildSettings: [BUILD_TEST_SETTING],
} satisfies RunnerConventions["testConfig"];

/** What the three tools share: Java tests, no regression test yet, the JVM test libraries watched. */
const shared = {
  languages: ["java"],
  regression: {
    plan: () => ({ ok: false, reason: "regression tests are not yet written for Java (JUnit) projects" }),
  } satisfies RegressionConventions,
  watched: {
    // TestNG's, AssertJ's, Hamcrest's and Mockito's objects too: the same builds run them beside JUnit.
    libraries: ["org.junit", "org.testng", "org.assertj", "org.hamcrest", "junit.framework", "org.mockito"],
    objects: ["org.junit", "org.testng", "org.assertj"],
    extensions: [],
    names: [/\bjunit\b/i, /\btestng\b/i],
    variables: [],
  } satisfies WatchedObjects,
} as const;

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const conventions: Readonly<Record<JUnitTool, RunnerConventions>> = {
  maven: {
    ...shared,
    label: "Maven",
    testConfig: MAVEN_CONFIG,
    markFiles: ["pom.xml"],
    recognise: (files) =>
      files.has("pom.xml")
        ? {
            testCommand: "mvn -B -o test",
            setup: ["mvn -B -q dependency:go-offline", "mvn -B -q dependency:copy-dependencies"],
            testReports: ["target/surefire-reports/TEST-*.xml", "**/target/surefire-reports/TEST-*.xml"],
            reasons: ["tests: maven"],
          }
        : null,
  },
  gradle: {
    ...shared,
    label: "Gradle",
    testConfig: GRADLE_CONFIG,
    markFiles: GRADLE_FILES,
    recognise(files) {
      if (!GRADLE_FILES.some((f) => files.has(f))) return null;
      const gradle = files.has("gradlew") ? "./gradlew" : "gradle";
      return {
        testCommand: `${gradle} --offline test`,
        setup: [`${gradle} --no-daemon dependencies`],
        testReports: ["build/test-results/test/*.xml", "**/build/test-results/test/*.xml"],
        reasons: ["tests: gradle"],
      };
    },
  },
  // The launcher is never recognised from files: a repository names it in its settings.
  junit: { ...shared, label: "JUnit", recognise: () => null, regressionDefault: true },
};
