/** The patch format as the patch-writer prompt describes it to the model. */
export const PATCH_FORMAT_HELP = `Write each change as one edit:

<file>path/to/file.py</file>
<original>
the lines of the file you change, copied exactly as they are now
</original>
<patched>
the same lines as they should read after your change
</patched>

Rules:
- <file> is the path relative to the repository root (a unique file name also works).
- <original> must be a contiguous block copied from the current file, including enough surrounding
  lines that it appears only once in the file. Do not include line numbers.
- <patched> replaces exactly the lines of <original>. Repeat unchanged lines in full; do not write
  placeholders such as "# rest of the code" or "// ... existing code ...".
- To add code, copy the lines next to where it goes into <original> and repeat them in <patched>
  together with the new code.
- Several edits may follow one another, for the same file or for different files; number them with
  "# modification 1", "# modification 2", ... if you like. All edits are applied together or not at all,
  so each <original> must match the file as it is before any of your edits.
- To create a new file, write <file new="true">path/to/new_file.py</file> followed by an empty
  <original></original> and the whole content in <patched>.
- Test files, CI configuration (.github/ and similar) and files outside the repository cannot be changed.
`;
