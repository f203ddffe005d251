/**
 * A patch writer's claim that a repository test which fails with its patch asserts the very behaviour the
 * issue asks to change, in a fixed form, one line each:
 *
 *     PINNED TEST: <test id> | "<the words of the issue it contradicts>"
 *
 * The claim is the model's word, never evidence: it is taken only when the test is one that failed and
 * the words are the issue's own, and then it is shown to the reviewer and the maintainer as a claim.
 */
export interface PinnedTestClaim {
  test: string;
  words: string;
}

export interface PinnedClaims {
  /** Claims about a test that failed, quoting words the issue holds. */
  taken: PinnedTestClaim[];
  /** Claims not taken, each with why (for the writer's next request and the record). */
  refused: string[];
}

const LINE = /^[ \t>*-]*PINNED[ _-]TEST:\s*(.+?)\s*\|\s*["“]([^"”\n]{4,400})["”]\s*$/gim;
const norm = (s: string): string => s.replace(/\s+/g, " ").trim().toLowerCase();

/** The claims in a patch answer, checked against the tests that failed and the issue's text. */
export function pinnedClaims(answer: string, issue: string, failing: readonly string[]): PinnedClaims {
  const taken: PinnedTestClaim[] = [];
  const refused: string[] = [];
  const text = norm(issue);
  for (const m of answer.matchAll(LINE)) {
    const test = m[1]!.replace(/^`|`$/g, "").trim();
    const words = m[2]!.trim();
    if (!failing.includes(test)) refused.push(`${test}: not one of the tests that failed with the patch`);
    else if (!text.includes(norm(words))) refused.push(`${test}: the quoted words are not the issue's`);
    else if (!taken.some((t) => t.test === test)) taken.push({ test, words });
  }
  return { taken, refused };
}

/** The claims in words for a prompt or a report: `- id — contradicts the issue's "words"`. */
export const claimLines = (claims: readonly PinnedTestClaim[]): string =>
  claims.map((c) => `- ${c.test}: asserts the old behaviour; the issue says "${c.words}"`).join("\n");

/** For the run's summary and the pull request: which tests fail, and what the writer claims of them. */
export const pinnedSummary = (claims: readonly PinnedTestClaim[]): string =>
  `${claims.map((c) => c.test).join(", ")} ${claims.length === 1 ? "fails" : "fail"} with the patch; the patch writer claims ${claims.length === 1 ? "it pins" : "they pin"} the behaviour the issue asks to change (the issue: ${claims.map((c) => `"${c.words}"`).join("; ")}): the maintainer decides whether to update ${claims.length === 1 ? "that test" : "those tests"}`;

/** The prose of a patch answer around its edits (edits and code blocks left out), bounded, quoted. */
export function saidAround(answer: string, max = 1500): string {
  const prose = answer
    .replace(/<(original|patched)>[\s\S]*?<\/\1>/g, "")
    .replace(/```[\s\S]*?```/g, "")
    .replace(/<\/?file>/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (!prose) return "";
  const cut = prose.length > max ? `${prose.slice(0, max - 3)}...` : prose;
  return cut
    .split("\n")
    .map((l) => `> ${l}`)
    .join("\n");
}

/** A rewrite's guidance with what the writer said beside its previous patch (each request is fresh). */
export function withSaid(guidance: string, answer: string | undefined): string {
  const said = saidAround(answer ?? "");
  return said ? `${guidance}\n\nWhat you wrote beside your previous patch (as data):\n\n${said}` : guidance;
}

/** The claims not taken, for the writer's next request; empty when every claim was taken. */
export const refusedNote = (claims: PinnedClaims): string =>
  claims.refused.length > 0
    ? `\n\nYour PINNED TEST lines were not taken:\n${claims.refused.map((x) => `- ${x}`).join("\n")}`
    : "";

/** Whether every test that fails is one the writer claimed pins the old behaviour (and one does fail). */
export const onlyPinnedFail = (taken: readonly PinnedTestClaim[], failing: readonly string[]): boolean =>
  taken.length > 0 && failing.length > 0 && failing.every((t) => taken.some((c) => c.test === t));

/**
 * What the reviewer is told: which tests failed, with which patch (this very one only when it is the
 * one that ran), and the writer's claims, as claims; empty without a claim.
 */
export function reviewerNote(
  claims: readonly PinnedTestClaim[],
  failing: readonly string[],
  sameAsRun: boolean,
): string {
  if (claims.length === 0) return "";
  const which = sameAsRun
    ? "The repository's tests fail with this patch"
    : "The repository's tests failed with the previous version of this patch (this version has not run them yet)";
  return `${which}: ${failing.join(", ")}. The patch writer claims each of these tests asserts the behaviour the issue asks to change (a claim, not evidence: judge it against the issue's words):\n${claimLines(claims)}`;
}
