import { execFileSync } from "node:child_process";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { XML_RUNNER } from "../support/junit-xml-runner.ts";
import { assertFixed, runMatrixCase, writeProject } from "./support/matrix.ts";

// The runner matrix for go test and JUnit: a small real project each, under several spellings of its
// command, run in the real sandbox before and after a real one-line fix. Each spelling must name every
// test on both trees, turn the failing test green and nothing else, and (go test) prove its canaries.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const has = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

const GO_FILES = {
  "go.mod": "module example.com/shop\n\ngo 1.19\n",
  "slug/slug.go":
    'package slug\n\nimport "strings"\n\nfunc Slug(s string) string {\n\treturn strings.Replace(strings.ToLower(s), " ", "-", 1)\n}\n',
  "slug/slug_test.go":
    'package slug\n\nimport "testing"\n\nfunc TestOneSpace(t *testing.T) {\n\tif got := Slug("A B"); got != "a-b" {\n\t\tt.Fatalf("got %q", got)\n\t}\n}\n\nfunc TestManyWords(t *testing.T) {\n\tif got := Slug("A B C"); got != "a-b-c" {\n\t\tt.Fatalf("got %q", got)\n\t}\n}\n',
  "total/total.go": "package total\n\nfunc Total(a, b int) int {\n\treturn a + b\n}\n",
  "total/total_test.go":
    'package total\n\nimport "testing"\n\nfunc TestAdds(t *testing.T) {\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal("1+2")\n\t}\n}\n',
};
const GO_BUG = { file: "slug/slug.go", from: '" ", "-", 1)', to: '" ", "-", -1)' };
const noGo = !has("go", ["version"]) && "go is not installed";

for (const command of [
  "go test ./...",
  "go test -v ./...",
  "go test -count=1 -json ./...",
  "go test ./slug/... ./total/...",
]) {
  test(`go test as \`${command}\`: per-test results before and after, the failing test fixed, canaries proven`, {
    skip: noGo,
  }, async () => {
    const repo = writeProject({
      ...GO_FILES,
      ".github/auto-fix.yml": `test: ${command}\ntimeouts:\n  test: 300\n`,
    });
    const r = await runMatrixCase(sandbox, repo, GO_BUG);
    assertFixed(r, {
      runner: "go",
      fixed: "example.com/shop/slug.TestManyWords",
      others: ["example.com/shop/slug.TestOneSpace", "example.com/shop/total.TestAdds"],
    });
  });
}

// --- JUnit 4: the classes compiled and run by JUnitCore (its text output), or by a runner of the
// project's that writes JUnit XML (read through `test-reports`) ---

const noJava = !has("javac", ["-version"]) && "javac is not installed";
const CP = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar";
const BUILD = `rm -rf /tmp/af-out && mkdir -p /tmp/af-out && javac -nowarn -d /tmp/af-out -cp ${CP} $(find src -name '*.java')`;
const JAVA_FILES = {
  "src/main/java/shop/Price.java":
    "package shop;\n\npublic class Price {\n  public static int half(int p) {\n    return p / 3;\n  }\n}\n",
  "src/main/java/shop/Total.java":
    "package shop;\n\npublic class Total {\n  public static int total(int a, int b) {\n    return a + b;\n  }\n}\n",
  "src/test/java/XmlRunner.java": XML_RUNNER,
  "src/test/java/shop/PriceTest.java":
    "package shop;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class PriceTest {\n  @Test public void half() { assertEquals(5, Price.half(10)); }\n  @Test public void zero() { assertEquals(0, Price.half(0)); }\n}\n",
  "src/test/java/shop/TotalTest.java":
    "package shop;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class TotalTest {\n  @Test public void adds() { assertEquals(3, Total.total(1, 2)); }\n}\n",
};
const JAVA_BUG = { file: "src/main/java/shop/Price.java", from: "p / 3", to: "p / 2" };
const JUNIT_IDS = { fixed: "shop.PriceTest.half", others: ["shop.PriceTest.zero", "shop.TotalTest.adds"] };

const JUNIT_SPELLINGS: Record<string, string[]> = {
  "the project's XML runner, through test-reports": [
    `test: ${BUILD} && java -cp /tmp/af-out:${CP} XmlRunner shop.PriceTest shop.TotalTest`,
    'test-reports: ["reports/*.xml"]',
    "validation:",
    "  runner: junit",
    `  command: ${BUILD} && java -cp /tmp/af-out:${CP} XmlRunner {tests}`,
  ],
  "a script of the project's, through test-reports": [
    "test: sh test.sh shop.PriceTest shop.TotalTest",
    'test-reports: ["reports/*.xml"]',
    "validation:",
    "  runner: junit",
    "  command: sh test.sh {tests}",
  ],
};

for (const [name, config] of Object.entries(JUNIT_SPELLINGS)) {
  test(`JUnit 4 as ${name}: per-test results before and after, the failing test fixed`, {
    skip: noJava,
  }, async () => {
    const repo = writeProject({
      ...JAVA_FILES,
      "test.sh": `set -e\n${BUILD}\nexec java -cp /tmp/af-out:${CP} XmlRunner "$@"\n`,
      ".github/auto-fix.yml": `${[...config, "timeouts:", "  test: 300"].join("\n")}\n`,
    });
    const r = await runMatrixCase(sandbox, repo, JAVA_BUG);
    // Canaries are not placed for JUnit runs (see the todo below): the run is "unverified", said as such.
    assertFixed(r, { runner: "junit", ...JUNIT_IDS, canaries: false });
    const v = r.validation.result;
    if (v.integrity?.state !== "unverified") throw new Error(`integrity: ${JSON.stringify(v.integrity)}`);
  });
}

test("JUnit 4 as JUnitCore's own text output: could not run, said as such (it prints only the tests that failed)", {
  skip: noJava,
}, async () => {
  const repo = writeProject({
    ...JAVA_FILES,
    ".github/auto-fix.yml": `${[
      `test: ${BUILD} && java -cp /tmp/af-out:${CP} org.junit.runner.JUnitCore shop.PriceTest shop.TotalTest`,
      "validation:",
      "  runner: junit",
      `  command: ${BUILD} && java -cp /tmp/af-out:${CP} org.junit.runner.JUnitCore {tests}`,
      "timeouts:",
      "  test: 300",
    ].join("\n")}\n`,
  });
  const r = await runMatrixCase(sandbox, repo, JAVA_BUG);
  const v = r.validation.result;
  if (
    v.status !== "could-not-run" ||
    v.fixed.length > 0 ||
    !/JUnitCore prints only the tests that failed/.test(v.summary)
  )
    throw new Error(JSON.stringify(v, null, 1));
});

test("JUnit 4: canaries placed and proven", {
  skip: noJava,
  todo: "check tests are not placed for JUnit runs (maven, gradle, junit): the run is unverified",
}, async () => {
  const repo = writeProject({
    ...JAVA_FILES,
    ".github/auto-fix.yml": `${[...JUNIT_SPELLINGS["the project's XML runner, through test-reports"]!, "timeouts:", "  test: 300"].join("\n")}\n`,
  });
  const r = await runMatrixCase(sandbox, repo, JAVA_BUG);
  assertFixed(r, { runner: "junit", ...JUNIT_IDS });
});
