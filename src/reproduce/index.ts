export {
  extractScript,
  hasReproducibleExample,
  judgeReproduction,
  type ReproducerDeps,
  type ReproRun,
  type Reproduction,
  reproduceIssue,
  rewriteReproducer,
  runReproducer,
  writeUntilReproduced,
} from "./reproducer.ts";
export {
  type ReproduceStageInput,
  type ReproduceStageResult,
  reproduceStage,
  type TreeCopy,
} from "./stage.ts";
