import type { RunnerConventions } from "../parts/conventions.ts";
import { quote } from "../shared/conventions-files.ts";
import { jsPlan, recogniseByScript } from "../shared/conventions-js.ts";

/** mocha's own settings: `.mocharc` in any format, package.json's `mocha`. */
const TEST_CONFIG = {
  wholeFiles: [/^\.mocharc(\.[\w]+)?$/],
  packageKeys: ["mocha"],
} satisfies RunnerConventions["testConfig"];

export const conventions: RunnerConventions = {
  testConfig: TEST_CONFIG,
  label: "mocha",
  languages: ["javascript", "typescript"],
  recognise: (files) => recogniseByScript(files, /mocha/),
  // mocha reports the file as a whole here (and also runs the spec files of its configuration, whose
  // tests are not the new file's): no per-test lines are read.
  regression: {
    plan: (root, changed) =>
      jsPlan(root, changed, {
        runner: "mocha",
        framework: "mocha",
        command: (path) => `npx --no-install mocha ${quote(path)}`,
        notes: ({ assertLine }) => `Use mocha's \`describe\`/\`it\` and \`${assertLine}\`.`,
      }),
  },
  // The assertion libraries mocha's tests use: node's assert, chai, should.
  watched: {
    libraries: ["mocha", "chai", "should"],
    objects: ["mocha", "chai", "should", "assert"],
    extensions: ["chai.use"],
    names: [/\bmocha\b/i],
    variables: [/MOCHA_/],
  },
};
