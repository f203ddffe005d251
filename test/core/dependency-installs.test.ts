import assert from "node:assert/strict";
import { test } from "node:test";
import {
  installsRemovedSentence,
  isDependencyInstall,
  removeInstalls,
  splitInstalls,
} from "../../src/core/dependency-installs.ts";

test("dependency installs are recognised in every usual spelling, and ordinary commands are not", () => {
  for (const cmd of [
    "pip install requests",
    "pip3 install -r requirements.txt",
    "python -m pip install --user .",
    "python3.11 -m pip install -e .",
    "/usr/bin/pip install x",
    "npm install",
    "npm ci --ignore-scripts",
    "npm i left-pad",
    "yarn install --frozen-lockfile",
    "yarn add lodash",
    "pnpm install",
    "pnpm add -D vitest",
    "go get example.com/x",
    "go mod download",
    "apt-get install -y libfoo",
    "sudo apt install libfoo",
    "gem install rake",
    "bundle install",
    "cargo fetch",
    "poetry install",
    "uv pip install x",
  ]) {
    assert.equal(isDependencyInstall(cmd), true, cmd);
  }
  for (const cmd of [
    "pytest -q",
    "python3 -m pytest tests",
    "npm test",
    "npm run build",
    "yarn test",
    "npx jest",
    "go test ./...",
    "go build ./...",
    "cargo test",
    "bundle exec rspec",
    "mvn -B test",
    "echo installed",
  ]) {
    assert.equal(isDependencyInstall(cmd), false, cmd);
  }
});

test("a chained install is split from the command that runs the tests", () => {
  assert.deepEqual(splitInstalls("pip install -r requirements.txt && pytest -q"), {
    installs: ["pip install -r requirements.txt"],
    rest: "pytest -q",
  });
  assert.deepEqual(splitInstalls("cd app && npm ci && npm test"), {
    installs: ["npm ci"],
    rest: "cd app && npm test",
  });
  assert.deepEqual(splitInstalls("pytest -q"), { installs: [], rest: "pytest -q" });
  assert.deepEqual(splitInstalls("npm install"), { installs: ["npm install"], rest: null });
});

test("installs are taken out of a script, whatever the language, and the rest is kept", () => {
  const py = [
    "import os, subprocess, sys",
    "def setup():",
    '    subprocess.check_call([sys.executable, "-m", "pip", "install",',
    '                           "requests"])',
    '    os.system("pip install -r requirements.txt")',
    "!pip install numpy",
    'print("run pip install yourself")',
    "from shop import x",
    "assert x() == 1",
  ].join("\n");
  const { script, removed } = removeInstalls(py, "python");
  assert.equal(removed.length, 3);
  assert.equal(
    script,
    [
      "import os, subprocess, sys",
      "def setup():",
      "    pass  # dependency install removed: the network is off and setup installed the dependencies",
      "    pass  # dependency install removed: the network is off and setup installed the dependencies",
      "pass  # dependency install removed: the network is off and setup installed the dependencies",
      'print("run pip install yourself")',
      "from shop import x",
      "assert x() == 1",
    ].join("\n"),
  );
  const js = removeInstalls(
    'import { execSync } from "node:child_process";\nexecSync("npm install lodash");\nconst a = 1;',
    "node",
  );
  assert.equal(js.removed.length, 1);
  assert.match(js.script, /^void 0; \/\/ dependency install removed/m);
  assert.match(js.script, /const a = 1;/);
  const sh = removeInstalls("set -e\npip install -e . && python3 check.py\nnpm ci\n", "command");
  assert.deepEqual(sh.removed, ["pip install -e .", "npm ci"]);
  assert.equal(
    sh.script,
    "set -e\npython3 check.py\n: # dependency install removed: the network is off and setup installed the dependencies\n",
  );
  // Nothing to take out: the script is unchanged.
  const plain = "from shop import x\nassert x() == 1\n";
  assert.deepEqual(removeInstalls(plain, "python"), { script: plain, removed: [] });
  assert.match(
    installsRemovedSentence(["pip install x"]),
    /^The dependency install in your script \(`pip install x`\) was not run: the sandbox has no network/,
  );
});

test("in C++ and Rust the install call alone goes, as a comment: the function around it stays", () => {
  const cpp = removeInstalls(
    'int main() {\n  system("apt-get install -y libfoo-dev");\n  return 1;\n}\n',
    "cpp",
  );
  assert.equal(
    cpp.script,
    "int main() {\n  // dependency install removed: the network is off and setup installed the dependencies\n  return 1;\n}\n",
  );
  assert.deepEqual(cpp.removed, ["system apt-get install -y libfoo-dev"]);
  const rust = removeInstalls(
    'fn main() {\n    std::process::Command::new("pip").args(["install", "x"]).status().unwrap();\n    assert!(false);\n}\n',
    "rust",
  );
  assert.match(rust.script, /^fn main\(\) \{\n {4}\/\/ dependency install removed[^\n]*\n/);
  assert.match(rust.script, /assert!\(false\);\n\}\n$/);
});
