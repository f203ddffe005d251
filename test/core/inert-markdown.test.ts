import assert from "node:assert/strict";
import { test } from "node:test";
import { codeFence, inertProse, inertText, inlineCode, plainInert } from "../../src/core/inert-markdown.ts";
import { liveEffects, renderGfm } from "../support/github-markdown.ts";

/** What a hostile reviewer, issue author or repository might write. */
const HOSTILE = [
  "Closes #7",
  "fixes octo-org/calc#3, resolves GH-12 and closes https://github.com/octo-org/calc/issues/9",
  "cc @mona and @octo-org/admins",
  "[click](https://evil.example/steal) ![pixel](https://evil.example/p.png)",
  "<img src=x onerror=alert(1)> <details open><summary>hi</summary>hidden</details>",
  "see https://evil.example and www.evil.example",
  "```\nfixes #8\n```\n@mona",
  "````` `` ` x ` `` `````",
  "| a | b |\n| --- | --- |\n| @mona | #9 |",
  "</details>\n\n## Forged heading\n\nCloses #10",
  "`` @mona `` ` ",
  "line\r@mona\rCloses #11",
  "<!-- fixes #12 --> @mona",
  "> Closes #13\n\n* @mona",
];

test("each way of rendering leaves nothing live: no mention, reference, closing keyword, link, image or HTML", () => {
  for (const text of HOSTILE) {
    for (const rendered of [
      inlineCode(text),
      codeFence(text),
      codeFence(text, "python"),
      inertText(text),
      `- file ${inlineCode(text)}: ${inertText(text)} and more`,
      `Reason: ${inertText(text)}.`,
      `<details><summary>x</summary>\n\n${codeFence(text)}\n\n</details>`,
    ]) {
      const live = liveEffects(rendered);
      assert.deepEqual(live.mentions, [], `mention in ${JSON.stringify(rendered)}`);
      assert.deepEqual(live.references, [], `reference in ${JSON.stringify(rendered)}`);
      assert.deepEqual(live.closing, [], `closing keyword in ${JSON.stringify(rendered)}`);
      assert.deepEqual(live.links, [], `link in ${JSON.stringify(rendered)}`);
      assert.deepEqual(live.images, [], `image in ${JSON.stringify(rendered)}`);
      assert.deepEqual(
        live.html.filter((t) => t !== "details" && t !== "summary"),
        [],
        `HTML in ${JSON.stringify(rendered)}`,
      );
    }
  }
});

test("the oracle sees what GitHub makes live when text is not rendered inert", () => {
  const live = liveEffects(HOSTILE.slice(0, 5).join("\n\n"));
  assert.ok(live.mentions.includes("mona") && live.mentions.includes("octo-org/admins"));
  assert.ok(live.closing.some((c) => /Closes #7/.test(c)));
  assert.ok(live.references.includes("octo-org/calc#3") && live.references.includes("GH-12"));
  assert.ok(live.links.includes("https://evil.example/steal"));
  assert.ok(live.images.includes("https://evil.example/p.png"));
  assert.ok(live.html.includes("img") && live.html.includes("details"));
});

test("the text itself stays readable: code shows it verbatim", () => {
  const html = renderGfm(inlineCode("Closes #7 @mona <b>x</b>"));
  assert.match(html, /<code>Closes #7 @mona &lt;b&gt;x&lt;\/b&gt;<\/code>/);
  const block = renderGfm(codeFence("a ``` b\n```` c", "text"));
  assert.match(block, /<pre><code class="language-text">a ``` b\n```` c\n<\/code><\/pre>/);
  assert.equal(inlineCode(""), "(empty)");
  assert.equal(inlineCode("`x`"), "`` `x` ``");
});

test("plain-text surfaces: titles and commit messages can neither reference, close nor mention", () => {
  const title = plainInert("Closes #7, fixes o/r#3, GH-4, https://github.com/o/r/issues/5 @mona\nx");
  assert.equal(title, "Closes ＃7, fixes o/r＃3, GH‐4, https∶//github.com/o/r/issues/5 ＠mona x");
  const live = liveEffects(title);
  assert.deepEqual([live.mentions, live.references, live.closing, live.links], [[], [], [], []]);
});

test("prose reads as text: escaped, with nothing live and no structure, whatever it holds", () => {
  for (const text of HOSTILE) {
    for (const rendered of [
      inertProse(text),
      `Reason: ${inertProse(text)}.`,
      `> ${inertProse(text).split("\n\n").join("\n>\n> ")}`,
      `- ${inertProse(text)}`,
    ]) {
      const live = liveEffects(rendered);
      const where = JSON.stringify(rendered);
      assert.deepEqual(
        [live.mentions, live.references, live.closing, live.links, live.images, live.html],
        [[], [], [], [], [], []],
        `something live in ${where}`,
      );
      // No structure either: no heading, list, quote, table, rule, emphasis or code of its own.
      const html = renderGfm(inertProse(text));
      assert.doesNotMatch(html, /<(h\d|ul|ol|li|blockquote|table|hr|em|strong|code|pre|del)\b/, where);
    }
  }
  // The words stay as they were written, only look-alikes for what would link.
  const html = renderGfm(inertProse("Divide by **len(values)** <b>now</b>; see `mean()` & [docs](x)."));
  assert.match(
    html,
    /<p>Divide by \*\*len\(values\)\*\* &lt;b&gt;now&lt;\/b&gt;; see `mean\(\)` &amp; \[docs\]\(x\)\.<\/p>/,
  );
  assert.equal(inertProse("  \n "), "(empty)");
  assert.equal(inertProse("a\nb\n\n\nc"), "a b\n\nc");
  assert.match(inertProse("x".repeat(50), { max: 10 }), /^x{10} … \(40 more characters in the artifacts\)$/);
});
