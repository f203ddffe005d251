/** Builds the PatchResult and its one-message summary for the model. */
import { PATCH_FORMAT_HELP } from "./format-help.ts";
import type { ChangedFile, EditReport, PatchResult, PatchStatus } from "./types.ts";

const HEADLINE: Record<PatchStatus, string> = {
  NO_PATCH: "The answer contains no edit.",
  RAW_PATCH_BUT_UNPARSED: "The answer's edits could not be read.",
  RAW_PATCH_BUT_UNSAFE_PATH: "The patch changes a file that patches may not touch.",
  RAW_PATCH_BUT_PLACEHOLDER: "The patch uses placeholder lines instead of code.",
  RAW_PATCH_BUT_UNMATCHED: "An <original> block does not match the file.",
  RAW_PATCH_BUT_ALREADY_APPLIED: "The patched text is already in the file.",
  RAW_PATCH_BUT_AMBIGUOUS: "An <original> block matches more than one place.",
  MATCHED_BUT_SYNTAX_ERROR: "The patched file would not parse.",
  MATCHED_BUT_UNCLEAR_INDENT: "The indentation of <patched> does not say where its lines belong.",
  MATCHED_BUT_EMPTY_DIFF: "The patch changes nothing.",
  MATCHED_BUT_EMPTY_ORIGIN: "An edit has an empty <original>.",
  APPLICABLE_PATCH: "The patch applies.",
};

export function summarise(
  status: PatchStatus,
  edits: EditReport[],
  changedFiles: ChangedFile[],
  diff: string,
): PatchResult {
  const lines: string[] = [HEADLINE[status]];
  if (status === "APPLICABLE_PATCH") {
    const unchecked = [...new Set(edits.filter((e) => e.syntaxUnchecked).map((e) => e.file))];
    if (unchecked.length > 0) {
      const why = edits.find((e) => e.syntaxUnchecked)!.syntaxUnchecked;
      lines[0] = `The patch applies, but the syntax of ${unchecked.join(", ")} was not checked: ${why}.`;
    }
  }
  if (status === "NO_PATCH") {
    lines.push(`Write your change in this format.\n\n${PATCH_FORMAT_HELP}`);
  } else if (status === "MATCHED_BUT_EMPTY_DIFF") {
    lines.push("Every <patched> equals its <original>. Change the code that causes the bug.");
  } else {
    edits.forEach((e, i) => {
      if (status !== "APPLICABLE_PATCH" && e.status === "APPLICABLE_PATCH") return;
      lines.push(`Edit ${i + 1} (${e.file || "no file"}): ${e.message}`);
    });
    if (status !== "APPLICABLE_PATCH") {
      lines.push("Nothing was applied. Write the whole answer again with these edits corrected.");
    }
  }
  return { status, diff, edits, changedFiles, feedback: lines.join("\n") };
}
