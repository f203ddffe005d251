import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModelPort } from "../../src/model/types.ts";
import { makeTestModel } from "../support/model-harness.ts";
import type { ChatRequest } from "../support/scripted-model.ts";

export const FIXTURES = new URL("../fixtures/review-repos/", import.meta.url).pathname;

/** The pipeline's model port (the OpenAI client inside) pointed at the scripted model server. */
export function chatModelFor(baseURL: string): ModelPort {
  return makeTestModel(baseURL, { config: { maxRetries: 0 } }).model;
}

/** Which prompt a request is answering, from its messages. */
export function promptKind(req: ChatRequest): string {
  const system = req.messages[0]?.content ?? "";
  const last = req.messages.at(-1)?.content ?? "";
  if (system.startsWith("You review a candidate fix"))
    return last.includes("could not be used") ? "review-retry" : "review";
  if (last.includes('"has-reproducible-example"')) return "has-example";
  if (last.includes("thinks the script does not test")) return "rewrite-test";
  if (last.includes("did not reproduce the issue")) return "repro-feedback";
  if (last.includes("Write a standalone")) return "repro-write";
  return "other";
}

export const fence = (lang: string, code: string): string =>
  `Here is the script.\n\n\`\`\`${lang}\n${code}\`\`\`\n`;

export const verdict = (patch: "yes" | "no", test: "yes" | "no", advice = ""): string =>
  JSON.stringify({
    "patch-analysis": `patch looks ${patch === "yes" ? "right" : "wrong"}`,
    "patch-correct": patch,
    "patch-advice": patch === "no" ? advice : "",
    "test-analysis": `test looks ${test === "yes" ? "right" : "wrong"}`,
    "test-correct": test,
    "test-advice": test === "no" ? advice : "",
  });

/** A unified diff (as `git diff` writes it) for one textual replacement in a file of `dir`. */
export function diffFor(dir: string, rel: string, from: string, to: string): string {
  const git = (...args: string[]): string =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: dir,
      encoding: "utf8",
    });
  if (!existsSync(join(dir, ".git"))) {
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "base");
  }
  const path = join(dir, rel);
  const before = readFileSync(path, "utf8");
  if (!before.includes(from)) throw new Error(`${rel} lacks ${from}`);
  writeFileSync(path, before.replace(from, to));
  const diff = git("diff");
  writeFileSync(path, before);
  return diff;
}
