export { type ChatMessageLike, type ChatModel, codeBlocks, firstJsonObject } from "./model.ts";
export {
  extractScript,
  hasReproducibleExample,
  isFatal,
  judgeReproduction,
  type ReproducerDeps,
  type ReproRun,
  type Reproduction,
  reproduceIssue,
  rewriteReproducer,
  runReproducer,
  writeUntilReproduced,
} from "./reproducer.ts";
