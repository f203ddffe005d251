import assert from "node:assert/strict";
import { test } from "node:test";
import { GENERAL_TEST_CONFIG, isTestConfigFileBy, testConfigChangeBy } from "../../src/core/test-config.ts";
import { RUNNERS } from "../../src/runners/index.ts";
import {
  checkEditablePath,
  isTestConfigFile,
  mayHoldTestConfig,
  TEST_CONFIG,
  testConfigChange,
} from "../../src/runners/shared/conventions-test-config.ts";

test("each runner's own configuration files are protected through its folder, not by a list of core's", () => {
  const own: [string, string][] = [
    ["pytest", "pytest.ini"],
    ["pytest", "conftest.py"],
    ["jest", "jest.config.ts"],
    ["jest", "src/setupTests.js"],
    ["vitest", "vitest.config.mts"],
    ["vitest", "vite.config.ts"],
    ["mocha", ".mocharc.yml"],
    ["maven", "mvnw"],
    ["maven", ".mvn/maven.config"],
    ["gradle", "gradlew"],
    ["gradle", "gradle/wrapper/gradle-wrapper.properties"],
  ];
  for (const [runner, path] of own) {
    assert.ok(isTestConfigFile(path), path);
    assert.equal(isTestConfigFileBy(GENERAL_TEST_CONFIG, path), false, `${path} is ${runner}'s, not core's`);
    // conftest.py is refused first as a test file; the others as test configuration.
    const verdict = checkEditablePath(path, []);
    assert.ok(
      !verdict.ok && /configures how tests are found and run|is a test file/.test(verdict.message),
      path,
    );
  }
  // A runner's files stay protected whatever runner the repository uses: every runner's rules are joined.
  for (const r of RUNNERS) {
    for (const re of r.testConfig?.wholeFiles ?? []) assert.ok(TEST_CONFIG.wholeFiles.includes(re), r.name);
    for (const k of r.testConfig?.packageKeys ?? []) assert.ok(TEST_CONFIG.packageKeys.includes(k), r.name);
  }
  assert.ok(checkEditablePath("src/app.py", []).ok);
  assert.ok(!isTestConfigFile("src/pytest_helpers.py"));
});

test("a runner's sections of a shared settings file are its test configuration; the file's other parts are not", () => {
  const toml = '[project]\nname = "x"\n[tool.pytest.ini_options]\naddopts = "-q"\n';
  assert.match(
    testConfigChange("pyproject.toml", toml, toml.replace('"-q"', '"-k not slow"'))!,
    /test settings/,
  );
  assert.equal(testConfigChange("pyproject.toml", toml, toml.replace('"x"', '"y"')), null);
  // Without pytest's folder the same change would pass: the section is known from the runner alone.
  assert.equal(
    testConfigChangeBy(GENERAL_TEST_CONFIG, "pyproject.toml", toml, toml.replace('"-q"', '"-k not slow"')),
    null,
  );
  const pkg = JSON.stringify({ name: "x", version: "1.0.0", mocha: { spec: "test" } });
  assert.match(testConfigChange("package.json", pkg, pkg.replace('"test"', '"none"'))!, /scripts, jest/);
  assert.equal(testConfigChange("package.json", pkg, pkg.replace("1.0.0", "1.0.1")), null);
  const pom = "<project><build><plugin>maven-surefire-plugin</plugin></build></project>";
  assert.match(
    testConfigChange("pom.xml", pom, pom.replace("surefire", "x"))!,
    /whole file is test configuration/,
  );
  assert.equal(testConfigChange("pom.xml", "<project/>", "<project><name>x</name></project>"), null);
  assert.ok(
    mayHoldTestConfig("build.gradle.kts") && mayHoldTestConfig("setup.cfg") && !mayHoldTestConfig("a.py"),
  );
});
