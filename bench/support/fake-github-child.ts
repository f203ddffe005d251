/**
 * The fake GitHub REST API (the test suite's) in a process of its own, for the load benchmark: one repo
 * with a maintainer who may trigger runs, the label configured, and issues #1000.. to label.
 * Prints "github <host>" when ready.
 */
import { startFakeGitHub } from "../../test/support/fake-github.ts";

const issues = Number(process.argv[2] ?? "3000");
const github = await startFakeGitHub();
const repo = github.addRepo("octo-org", "calc", { cloneUrl: "http://127.0.0.1:9/octo-org/calc.git" });
repo.permissions.set("mona", "write");
repo.files.set(".github/auto-fix.yml", "label: auto-fix\n");
for (let i = 0; i < issues; i++) {
  github.addIssue("octo-org", "calc", { number: 1000 + i, title: `bug ${i}`, body: "add(1, 2) is -1" });
}
process.stdout.write(`github ${github.host}\n`);
process.on("SIGTERM", () => {
  void github.close().then(() => process.exit(0));
});
