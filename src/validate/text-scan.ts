export * from "../runners/shared/results-text-scan.ts";
