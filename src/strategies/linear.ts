import { runPatchWriter } from "../agents/patch-agent.ts";
import type { FixContext, PatchCandidate, PatchStrategy } from "../contract/pipeline.ts";

/** The linear strategy: one conversation, each inapplicable attempt sent back with the engine's message. */
export function linearStrategy(opts: { maxAttempts?: number } = {}): PatchStrategy {
  return {
    name: "linear",
    async run(ctx: FixContext): Promise<PatchCandidate[]> {
      const s = ctx.state;
      const maxAttempts = opts.maxAttempts ?? ctx.options.patchAttempts;
      const produced: PatchCandidate[] = [];
      const toCandidate = (a: { attempt: number; answer: string; result: PatchCandidate["result"] }) => ({
        id: `linear-${a.attempt}`,
        source: `linear attempt ${a.attempt}`,
        answer: a.answer,
        result: a.result,
        applicable: a.result.status === ctx.code.engine.applicableStatus,
      });
      await runPatchWriter(
        ctx.model,
        ctx.code.engine,
        {
          issue: ctx.options.issue,
          locations: s.locationsText,
          history: s.search?.results ?? [],
          ...(ctx.options.guidance ? { guidance: ctx.options.guidance } : {}),
        },
        {
          ...(maxAttempts !== undefined ? { maxAttempts } : {}),
          recorder: ctx.recorder,
          onAttempt: (n, max) => ctx.progress.detail(`attempt ${n}/${max}`),
          onResult: (a) => {
            const c = toCandidate(a);
            produced.push(c);
            ctx.state.candidates.push(c);
          },
        },
      );
      return produced;
    },
  };
}
