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
