import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { tempDir } from "../support/temp.ts";
import { assertFixed, runMatrixCase, writeProject } from "./support/matrix.ts";

// The runner matrix for Maven (JUnit 5 through Surefire), offline: the plugins and libraries the build
// needs are taken from this machine's Maven repository (~/.m2/repository, as a file mirror) into a
// repository inside the project (`.m2`), which `.mvn/maven.config` names with `-o`, so every spelling of
// `mvn … test` runs in the sandbox without the network. Each must name every test on both trees and
// turn the failing test green and nothing else; Surefire's XML reports name the tests.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>shop</groupId><artifactId>shop</artifactId><version>1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter-engine</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
  </plugins></build>
</project>
`;

const FILES = {
  "pom.xml": POM,
  ".mvn/maven.config": "-o\n-Dmaven.repo.local=.m2\n",
  "src/main/java/shop/Price.java":
    "package shop;\n\npublic class Price {\n  public static int half(int p) {\n    return p / 3;\n  }\n}\n",
  "src/main/java/shop/Total.java":
    "package shop;\n\npublic class Total {\n  public static int total(int a, int b) {\n    return a + b;\n  }\n}\n",
  "src/test/java/shop/PriceTest.java":
    "package shop;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass PriceTest {\n  @Test void half() { assertEquals(5, Price.half(10)); }\n  @Test void zero() { assertEquals(0, Price.half(0)); }\n}\n",
  "src/test/java/shop/TotalTest.java":
    "package shop;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass TotalTest {\n  @Test void adds() { assertEquals(3, Total.total(1, 2)); }\n}\n",
};

/** The project's Maven repository, filled once from ~/.m2/repository (null: Maven or the artifacts are missing). */
const offlineRepository = ((): string | null => {
  const host = join(homedir(), ".m2", "repository");
  if (!existsSync(host)) return null;
  const dir = tempDir("af-matrix-mvn-");
  try {
    writeFileSync(
      join(dir, "settings.xml"),
      `<settings><mirrors><mirror><id>central</id><mirrorOf>*</mirrorOf><url>file://${host}</url></mirror></mirrors></settings>\n`,
    );
    const project = join(dir, "project");
    mkdirSync(project);
    for (const [rel, text] of Object.entries(FILES)) {
      if (rel.startsWith(".mvn")) continue;
      mkdirSync(join(project, rel, ".."), { recursive: true });
      writeFileSync(join(project, rel), text.replace("p / 3", "p / 2"));
    }
    execFileSync(
      "mvn",
      ["-B", "-q", "-s", join(dir, "settings.xml"), `-Dmaven.repo.local=${join(dir, "m2")}`, "test"],
      { cwd: project, stdio: "pipe", timeout: 300_000 },
    );
    return join(dir, "m2");
  } catch {
    return null;
  }
})();

const IDS = { fixed: "shop.PriceTest.half", others: ["shop.PriceTest.zero", "shop.TotalTest.adds"] };

for (const command of ["mvn test", "mvn -B -q test", "mvn -B -ntp test -DtrimStackTrace=false"]) {
  test(`Maven as \`${command}\` (offline through .mvn/maven.config): per-test results before and after, the failing test fixed`, {
    skip: !offlineRepository && "Maven, or the artifacts of this build in ~/.m2/repository, are not here",
  }, async () => {
    const repo = writeProject({
      ...FILES,
      ".github/auto-fix.yml": `test: ${command}\ntimeouts:\n  test: 600\n`,
    });
    cpSync(offlineRepository!, join(repo, ".m2"), { recursive: true });
    const r = await runMatrixCase(sandbox, repo, {
      file: "src/main/java/shop/Price.java",
      from: "p / 3",
      to: "p / 2",
    });
    // Canaries are not placed for Maven runs (see matrix-go-junit's todo): the run is "unverified".
    assertFixed(r, { runner: "maven", ...IDS, canaries: false });
  });
}
