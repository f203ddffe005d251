import { RUNNERS } from "../registry.ts";

/**
 * Output shown to a person, without the closing recaps that repeat failures it already printed in full
 * (each runner's `withoutRecap`): the output may come from any runner, or from none.
 */
export function withoutRecaps(output: string): string {
  return RUNNERS.reduce((text, r) => (r.withoutRecap ? r.withoutRecap(text) : text), output);
}
